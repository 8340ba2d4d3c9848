/**
 * The steps of "Enqueue Job": queue (existing or new) → kind (shell, http, custom) → the command,
 * URL or JSON payload → optional priority, delay and attempts. Each step remembers recent
 * entries in the extension's global state. Escape at any step cancels the whole enqueue.
 */
import * as vscode from 'vscode';
import { parseDuration } from '../../../shared/domain/durations';
import { LIMITS, NAME_PATTERN, type EnqueueParams } from '../../../shared/protocol';
import type { SpoolContext } from '../../context';
import { UNTRUSTED_SHELL } from '../../trust';

const RECENT_LIMIT = 10;
const TITLE = 'Spool: Enqueue Job';

function recent(ctx: SpoolContext, key: string): string[] {
  const value: unknown = ctx.extension.globalState.get(`spool.recent.${key}`);
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

export async function remember(ctx: SpoolContext, key: string, entry: string): Promise<void> {
  const list = [entry, ...recent(ctx, key).filter((e) => e !== entry)].slice(0, RECENT_LIMIT);
  await ctx.extension.globalState.update(`spool.recent.${key}`, list);
}

/**
 * A quick pick that offers recent entries and takes whatever is typed: the typed text is
 * always the first item, so typing and pressing Enter uses it.
 */
function pickOrType(step: number, placeholder: string, items: { label: string; description?: string }[], typedLabel: (value: string) => string): Promise<string | undefined> {
  return new Promise((resolve) => {
    const qp = vscode.window.createQuickPick<vscode.QuickPickItem & { value: string }>();
    qp.title = TITLE;
    qp.step = step;
    qp.totalSteps = 4;
    qp.placeholder = placeholder;
    qp.ignoreFocusOut = true;
    const base = items.map((i) => ({ ...i, value: i.label }));
    const update = (): void => {
      const typed = qp.value.trim();
      const exact = base.some((i) => i.value === typed);
      qp.items = typed !== '' && !exact ? [{ label: typedLabel(typed), value: typed, alwaysShow: true }, ...base] : base;
    };
    update();
    let done = false;
    qp.onDidChangeValue(update);
    qp.onDidAccept(() => {
      const chosen = qp.selectedItems[0]?.value ?? qp.value.trim();
      if (chosen === '') return;
      done = true;
      resolve(chosen);
      qp.hide();
    });
    qp.onDidHide(() => {
      if (!done) resolve(undefined);
      qp.dispose();
    });
    qp.show();
  });
}

async function pickQueue(ctx: SpoolContext, preset: string | undefined): Promise<string | undefined> {
  if (preset) return preset;
  const { queues } = await ctx.connection.client().call('queues.list');
  const known = new Set(queues.map((q) => q.name));
  const recents = recent(ctx, 'queue').filter((q) => !known.has(q));
  for (;;) {
    const name = await pickOrType(
      1,
      'Queue: pick one or type a new name',
      [...queues.map((q) => ({ label: q.name, description: q.paused ? 'paused' : `${q.counts.queued} queued` })), ...recents.map((label) => ({ label, description: 'recent' }))],
      (typed) => `$(add) New queue "${typed}"`,
    );
    if (name === undefined || NAME_PATTERN.test(name)) return name;
    void vscode.window.showErrorMessage(`"${name}" is not a valid queue name: use 1–128 letters, digits, ".", "_", ":" or "-", starting with a letter or digit.`);
  }
}

async function pickKind(): Promise<string | undefined> {
  const items: (vscode.QuickPickItem & { jobKind: string })[] = [
    { label: '$(terminal) shell', description: 'run a command with /bin/sh', jobKind: 'shell' },
    { label: '$(globe) http', description: 'call a URL', jobKind: 'http' },
    { label: '$(symbol-namespace) custom…', description: 'a kind your own workers claim, with a JSON payload', jobKind: '' },
  ];
  const pick = await vscode.window.showQuickPick(items, { title: `${TITLE} (2/4)`, placeHolder: 'Kind of job', ignoreFocusOut: true });
  if (!pick) return undefined;
  if (pick.jobKind !== '') {
    if (pick.jobKind === 'shell' && !vscode.workspace.isTrusted) throw new Error(UNTRUSTED_SHELL);
    return pick.jobKind;
  }
  return vscode.window.showInputBox({
    title: `${TITLE} (2/4)`,
    prompt: 'The job kind your workers claim',
    placeHolder: 'e.g. resize-image',
    ignoreFocusOut: true,
    validateInput: (v) => (NAME_PATTERN.test(v.trim()) ? null : 'Use 1–128 letters, digits, ".", "_", ":" or "-", starting with a letter or digit.'),
  });
}

/** The payload: a shell command, a URL, or JSON, validated before it is sent. */
async function askPayload(ctx: SpoolContext, kind: string): Promise<unknown | undefined> {
  if (kind === 'shell') {
    const command = await pickOrType(3, 'Shell command to run (e.g. npm test)', recent(ctx, 'shell').map((label) => ({ label })), (typed) => `$(terminal) ${typed}`);
    if (command === undefined) return undefined;
    await remember(ctx, 'shell', command);
    const cwd = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    return cwd ? { command, cwd } : { command };
  }
  if (kind === 'http') {
    for (;;) {
      const url = await pickOrType(3, 'URL to call (GET)', recent(ctx, 'http').map((label) => ({ label })), (typed) => `$(globe) ${typed}`);
      if (url === undefined) return undefined;
      if (/^https?:\/\/./.test(url) && URL.canParse(url)) {
        await remember(ctx, 'http', url);
        return { url };
      }
      void vscode.window.showErrorMessage(`"${url}" is not an http(s) URL.`);
    }
  }
  const text = await vscode.window.showInputBox({
    title: `${TITLE} (3/4)`,
    prompt: `JSON payload for a "${kind}" job`,
    value: recent(ctx, `payload.${kind}`)[0] ?? '{}',
    ignoreFocusOut: true,
    validateInput: (v) => {
      try {
        JSON.parse(v);
      } catch (error) {
        return `Not valid JSON: ${error instanceof Error ? error.message : String(error)}`;
      }
      return Buffer.byteLength(v) > LIMITS.maxPayloadBytes ? `The payload is over ${LIMITS.maxPayloadBytes} bytes.` : null;
    },
  });
  if (text === undefined) return undefined;
  await remember(ctx, `payload.${kind}`, text);
  const payload: unknown = JSON.parse(text);
  return payload;
}

export interface EnqueueOptions {
  priority?: number;
  delayMs?: number;
  maxAttempts?: number;
}

/** Parses "priority=5 delay=30s attempts=3" (any subset, any order); throws what is wrong. */
export function parseOptions(text: string): EnqueueOptions {
  const options: EnqueueOptions = {};
  for (const part of text.trim().split(/\s+/).filter((p) => p !== '')) {
    const [key, value = ''] = part.split('=', 2);
    if (key === 'priority') {
      const n = Number(value);
      if (!Number.isInteger(n) || n < LIMITS.minPriority || n > LIMITS.maxPriority) throw new Error(`priority must be a whole number from ${LIMITS.minPriority} to ${LIMITS.maxPriority}`);
      options.priority = n;
    } else if (key === 'attempts') {
      const n = Number(value);
      if (!Number.isInteger(n) || n < 1 || n > LIMITS.maxAttempts) throw new Error(`attempts must be a whole number from 1 to ${LIMITS.maxAttempts}`);
      options.maxAttempts = n;
    } else if (key === 'delay') {
      // The CLI's and the jobs file's syntax: a bare number is refused rather than read as seconds.
      const delay = parseDuration(value);
      if (!delay.ok) throw new Error(`delay: ${delay.message}`);
      options.delayMs = delay.value;
    } else {
      throw new Error(`unknown option "${key}": use priority=, delay= or attempts=`);
    }
  }
  return options;
}

async function askOptions(): Promise<EnqueueOptions | undefined> {
  const text = await vscode.window.showInputBox({
    title: `${TITLE} (4/4)`,
    prompt: 'Options (optional): press Enter to enqueue with the queue defaults',
    placeHolder: 'priority=5 delay=30s attempts=3',
    ignoreFocusOut: true,
    validateInput: (v) => {
      try {
        parseOptions(v);
        return null;
      } catch (error) {
        return error instanceof Error ? error.message : String(error);
      }
    },
  });
  return text === undefined ? undefined : parseOptions(text);
}

/** Runs the steps; undefined when the user cancelled. `preset` skips the steps it fills. */
export async function askEnqueueParams(ctx: SpoolContext, preset: { queue?: string } = {}): Promise<EnqueueParams | undefined> {
  const queue = await pickQueue(ctx, preset.queue);
  if (queue === undefined) return undefined;
  const kind = await pickKind();
  if (kind === undefined) return undefined;
  const payload = await askPayload(ctx, kind);
  if (payload === undefined) return undefined;
  const options = await askOptions();
  if (options === undefined) return undefined;
  await remember(ctx, 'queue', queue);
  return { queue, kind, payload, ...options };
}
