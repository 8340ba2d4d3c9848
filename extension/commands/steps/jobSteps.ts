/**
 * The steps that describe a job, shared by Enqueue Job and Create Schedule: the queue (one of the
 * daemon's, a recent one, or a new name), the kind, then what the kind needs (a shell command; a
 * URL, method, headers and body; or a custom kind and its JSON payload), then the options. Recent
 * answers are offered again (kept in the extension's global state).
 */
import * as vscode from 'vscode';
import type { Queue } from '../../../shared/protocol/types';
import { queueText } from '../../../shared/domain/present';
import type { SpoolContext } from '../../context';
import { UNTRUSTED_SHELL } from '../../trust';
import type { JobDraft, KindChoice } from './draft';
import { settle, type Step } from './plan';
import { HTTP_METHODS, jsonProblem, nameProblem, parseHeaders, parseOptions, takesBody, urlProblem, type OptionName } from './rules';

const RECENT_LIMIT = 10;

/** Recent answers of one kind (`queue`, `shell`, `http`, `payload.<kind>`), newest first. */
export function recent(ctx: SpoolContext, key: string): string[] {
  const value: unknown = ctx.extension.globalState.get(`spool.recent.${key}`);
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

export async function remember(ctx: SpoolContext, key: string, entry: string): Promise<void> {
  const list = [entry, ...recent(ctx, key).filter((e) => e !== entry)].slice(0, RECENT_LIMIT);
  await ctx.extension.globalState.update(`spool.recent.${key}`, list);
}

/** The queue step: the daemon's queues (with counts), then recent names, or a new name typed. */
export function queueStep<S extends JobDraft>(queues: readonly Queue[], recents: readonly string[]): Step<S> {
  const known = new Set(queues.map((q) => q.name));
  const items = [
    // The Queues view's words for the same queue (queued = due now, delayed apart).
    ...queues.map((q) => ({ label: q.name, description: queueText(q) })),
    ...recents.filter((q) => !known.has(q)).map((label) => ({ label, description: 'recent' })),
  ];
  return {
    run: async (input, state) =>
      settle(
        await input.pickOrType({
          placeholder: 'Queue: pick one or type a new name',
          items,
          value: state.queue,
          typedLabel: (typed) => `$(add) New queue "${typed}"`,
          check: (typed) => nameProblem('queue', typed),
        }),
        (queue) => (state.queue = queue.trim()),
      ),
  };
}

const KINDS: { label: string; description: string; value: KindChoice }[] = [
  { label: '$(terminal) shell', description: 'run a command with /bin/sh', value: 'shell' },
  { label: '$(globe) http', description: 'call a URL (method, headers and body as you choose)', value: 'http' },
  { label: '$(symbol-namespace) custom…', description: 'a kind your own workers claim, with a JSON payload', value: 'custom' },
];

/** The kind step. A shell job is refused at once in an untrusted workspace, which runs none. */
export function kindStep<S extends JobDraft>(): Step<S> {
  return {
    run: async (input, state) =>
      settle(await input.pick({ placeholder: 'Kind of job', items: KINDS, active: state.kindChoice }), (kind) => {
        if (kind === 'shell' && !vscode.workspace.isTrusted) throw new Error(UNTRUSTED_SHELL);
        state.kindChoice = kind;
      }),
  };
}

/** What the kind needs: the command, the request, or the custom kind and payload. */
export function payloadSteps<S extends JobDraft>(ctx: SpoolContext): Step<S>[] {
  const is = (kind: KindChoice) => (state: S) => state.kindChoice === kind;
  // Until the kind is chosen the count is a shell job's (the first kind offered), and until the
  // method is chosen the body step counts: "step 1 of 4" then, not "of 3".
  return [
    {
      applies: (state) => (state.kindChoice ?? 'shell') === 'shell',
      run: async (input, state) =>
        settle(
          await input.pickOrType({
            placeholder: 'Shell command to run (e.g. npm test)',
            items: recent(ctx, 'shell').map((label) => ({ label })),
            value: state.command,
            typedLabel: (typed) => `$(terminal) ${typed}`,
            check: () => null,
          }),
          (command) => (state.command = command),
        ),
    },
    {
      applies: is('http'),
      run: async (input, state) =>
        settle(
          await input.pickOrType({
            placeholder: 'URL to call (e.g. https://example.com/hook)',
            items: recent(ctx, 'http').map((label) => ({ label })),
            value: state.url,
            typedLabel: (typed) => `$(globe) ${typed}`,
            check: urlProblem,
          }),
          (url) => (state.url = url.trim()),
        ),
    },
    {
      applies: is('http'),
      run: async (input, state) =>
        settle(
          await input.pick({ placeholder: 'HTTP method', items: HTTP_METHODS.map((m) => ({ label: m, value: m })), active: state.method ?? 'GET' }),
          (method) => (state.method = method),
        ),
    },
    {
      applies: is('http'),
      run: async (input, state) =>
        settle(
          await input.text({
            prompt: 'Request headers (optional): Name: value, several separated by |. Enter to go on.',
            placeholder: 'Authorization: Bearer xyz | X-Source: spool',
            value: state.headers,
            check: (v) => {
              const headers = parseHeaders(v);
              return headers.ok ? null : headers.message;
            },
          }),
          (headers) => (state.headers = headers),
        ),
    },
    {
      applies: (state) => state.kindChoice === 'http' && (state.method === undefined || takesBody(state.method)),
      run: async (input, state) =>
        settle(
          await input.text({ prompt: `Request body (optional), sent as typed with ${state.method ?? 'GET'}`, placeholder: '{"ok":true}', value: state.body, check: () => null }),
          (body) => (state.body = body),
        ),
    },
    {
      applies: is('custom'),
      run: async (input, state) =>
        settle(
          await input.text({ prompt: 'The job kind your workers claim', placeholder: 'e.g. resize-image', value: state.customKind, check: (v) => nameProblem('kind', v) }),
          (kind) => (state.customKind = kind.trim()),
        ),
    },
    {
      applies: is('custom'),
      run: async (input, state) =>
        settle(
          await input.text({
            prompt: `JSON payload for a "${state.customKind ?? ''}" job`,
            value: state.payload ?? recent(ctx, `payload.${state.customKind ?? ''}`)[0] ?? '{}',
            check: jsonProblem,
          }),
          (payload) => (state.payload = payload),
        ),
    },
  ];
}

/** The options step: the names in `allowed`, in the CLI's syntax, checked as typed. */
export function optionsStep<S extends JobDraft>(allowed: readonly OptionName[], finish: string): Step<S> {
  const example = allowed.includes('delay') ? 'priority=5 delay=30s attempts=3' : 'priority=5 attempts=3 timeout=10m';
  return {
    run: async (input, state) =>
      settle(
        await input.text({
          prompt: `Options (optional): ${allowed.map((a) => `${a}=`).join(' ')} — press Enter to ${finish}`,
          placeholder: `${example} backoff=exponential:1s:5m`,
          value: state.options,
          check: (v) => {
            const options = parseOptions(v, allowed);
            return options.ok ? null : options.message;
          },
        }),
        (options) => (state.options = options),
      ),
  };
}

/** Remembers the answers worth offering again next time. */
export async function rememberDraft(ctx: SpoolContext, draft: JobDraft): Promise<void> {
  if (draft.queue) await remember(ctx, 'queue', draft.queue);
  if (draft.kindChoice === 'shell' && draft.command) await remember(ctx, 'shell', draft.command);
  if (draft.kindChoice === 'http' && draft.url) await remember(ctx, 'http', draft.url);
  if (draft.kindChoice === 'custom' && draft.customKind && draft.payload) await remember(ctx, `payload.${draft.customKind}`, draft.payload);
}
