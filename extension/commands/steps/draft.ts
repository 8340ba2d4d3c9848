/**
 * A job as the steps collect it: the answers as typed (so Back and a refusal can show them
 * again), and the job they make. Pure of `vscode`, so what the answers become is unit-tested.
 */
import type { Parsed } from '../../../shared/domain/parsed';
import { ENQUEUE_OPTIONS, parseHeaders, parseOptions, takesBody, type EnqueueOptions, type OptionName } from './rules';
import { errorMessage } from '../../../shared/protocol/errors';

/** The kind step's choice: the two built-in executors, or a kind the user's workers claim. */
export type KindChoice = 'shell' | 'http' | 'custom';

/** The answers so far, each as typed. */
export interface JobDraft {
  queue?: string;
  kindChoice?: KindChoice;
  /** The kind's name, for `custom`. */
  customKind?: string;
  command?: string;
  url?: string;
  method?: string;
  headers?: string;
  body?: string;
  /** The JSON payload, for `custom`. */
  payload?: string;
  options?: string;
}

/** The job the answers make: its kind, payload and options. */
export interface DraftedJob {
  kind: string;
  payload: unknown;
  options: EnqueueOptions;
}

/**
 * The job of a complete draft, or what is missing or wrong (each step checked its answer already;
 * this is the last word before sending). `cwd` is where a shell job runs (the workspace folder).
 */
export function draftJob(draft: JobDraft, cwd: string | undefined, allowed: readonly OptionName[] = ENQUEUE_OPTIONS): Parsed<DraftedJob> {
  const options = parseOptions(draft.options ?? '', allowed);
  if (!options.ok) return options;
  if (draft.kindChoice === 'shell') {
    const command = draft.command?.trim() ?? '';
    if (command === '') return { ok: false, message: 'The shell command is empty.' };
    return { ok: true, value: { kind: 'shell', payload: cwd ? { command, cwd } : { command }, options: options.value } };
  }
  if (draft.kindChoice === 'http') {
    const url = draft.url?.trim() ?? '';
    if (url === '') return { ok: false, message: 'The URL is empty.' };
    const method = draft.method ?? 'GET';
    const headers = parseHeaders(draft.headers ?? '');
    if (!headers.ok) return headers;
    const body = takesBody(method) ? (draft.body ?? '') : '';
    // The payload as the CLI writes it: fields left out are the executor's defaults.
    const payload = {
      url,
      ...(method !== 'GET' ? { method } : {}),
      ...(Object.keys(headers.value).length > 0 ? { headers: headers.value } : {}),
      ...(body !== '' ? { body } : {}),
    };
    return { ok: true, value: { kind: 'http', payload, options: options.value } };
  }
  if (draft.kindChoice === 'custom') {
    const kind = draft.customKind?.trim() ?? '';
    if (kind === '') return { ok: false, message: 'The kind is empty.' };
    let payload: unknown;
    try {
      payload = JSON.parse(draft.payload ?? '{}');
    } catch (error) {
      return { ok: false, message: `The payload is not valid JSON: ${errorMessage(error)}` };
    }
    return { ok: true, value: { kind, payload, options: options.value } };
  }
  return { ok: false, message: 'Choose the kind of job.' };
}
