/**
 * The CLI's own errors, and the daemon's errors said in the CLI's words.
 *
 * `CliError` is bad input found before anything is sent. Errors from the daemon arrive as
 * SpoolError and speak the protocol: its field names (`tags[0] must be…`, `idempotencyKey…`) and
 * its methods (`Change it with schedules.update`). A person at the command line typed flags and
 * commands, so `cliMessage` translates, in this one place for every command: by the error's
 * code, and by `data.field`, mapped to the flag or argument that sets that field. `spool rpc`
 * alone prints the daemon's words, since there the protocol is what was typed.
 */
import { SpoolError, errorMessage } from '../shared/protocol/errors';
import { ErrorCode } from '../shared/protocol';

export class CliError extends Error {
  override readonly name = 'CliError';

  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

/**
 * Protocol fields (as `data.field` and the messages spell them, without the `job.` of a
 * schedule's job or the `filter.` of a bulk filter) and what sets them on the command line.
 * Sub-fields come before their parent so that the most precise entry is found first.
 */
const FIELD_WORDS: readonly [field: string, words: string][] = [
  ['payload.command', '--shell'],
  ['payload.cwd', '--cwd'],
  ['payload.env', '--env'],
  ['payload.url', '--http'],
  ['payload.method', '--method'],
  ['payload.headers', '--header'],
  ['payload.body', '--body'],
  ['payload', '--payload'],
  // The payload's fields as jobs.update takes them on their own (spool job edit).
  ['command', '--command'],
  ['cwd', '--cwd'],
  ['env', '--env'],
  ['url', '--url'],
  ['method', '--method'],
  ['headers', '--header'],
  ['body', '--body'],
  ['backoff.strategy', 'the --backoff strategy'],
  ['backoff.baseMs', 'the --backoff base'],
  ['backoff.capMs', 'the --backoff cap'],
  ['backoff.jitter', 'the --backoff jitter'],
  ['backoff', '--backoff'],
  ['defaultBackoff.strategy', 'the --backoff strategy'],
  ['defaultBackoff.baseMs', 'the --backoff base'],
  ['defaultBackoff.capMs', 'the --backoff cap'],
  ['defaultBackoff.jitter', 'the --backoff jitter'],
  ['defaultBackoff', '--backoff'],
  ['kind', '--kind'],
  ['kinds', '--kind'],
  ['priority', '--priority'],
  ['weight', '--weight'],
  ['group', '--group'],
  ['groupConcurrency', '--group-concurrency'],
  ['groupRate', '--group-rate'],
  ['groupRate.perSecond', '--group-rate'],
  ['groupRate.burst', 'the --group-rate burst'],
  ['groupWeights', '--group-weights'],
  ['maxAttempts', '--attempts'],
  ['defaultMaxAttempts', '--attempts'],
  ['timeoutMs', '--timeout'],
  ['defaultTimeoutMs', '--timeout'],
  ['tags', '--tag'],
  ['tag', '--tag'],
  ['idempotencyKey', '--key'],
  ['runAt', '--at'],
  ['delayMs', '--delay'],
  ['states', '--state'],
  ['search', '--search'],
  ['delayed', '--delayed'],
  ['order', '--order'],
  ['limit', '--limit'],
  ['cursor', '--cursor'],
  ['queue', '--queue'],
  ['queues', 'the queue name'],
  ['name', 'the name'],
  ['cron', '--cron'],
  ['timezone', '--tz'],
  ['missedPolicy', '--missed'],
  ['concurrency', '--concurrency'],
  ['rateLimit', '--rate'],
  ['retentionMs', '--retention'],
  ['workerId', '--worker-id'],
  ['ids', 'the job ids'],
  ['id', 'the job id'],
];

/** Where a command names a field otherwise: a positional argument rather than a flag. */
const COMMAND_WORDS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  enqueue: { queue: 'the queue name' },
  queue: { name: 'the queue name' },
  'schedule add': { name: 'the schedule name' },
  'schedule set': { name: 'the schedule name' },
  'schedule rm': { name: 'the schedule name' },
  'schedule enable': { name: 'the schedule name' },
  'schedule disable': { name: 'the schedule name' },
  'schedule run': { name: 'the schedule name' },
  'schedule show': { name: 'the schedule name' },
};

/** Fields whose last part is a name the user chose (`--env FOO`, `--header X-Id`): kept. */
const NAMED_ENTRIES = new Set(['payload.env', 'payload.headers', 'env', 'headers']);

/** Field names that are not English words, so they can be translated wherever a message has them. */
const PROTOCOL_ONLY = /[A-Z.]/;

/**
 * The message to print for an error raised while running `spool <command>` (e.g. "schedule
 * add"): the daemon's message in the CLI's words, or any other error's message unchanged.
 */
export function cliMessage(error: unknown, command: string): string {
  const message = errorMessage(error);
  if (!(error instanceof SpoolError) || command === 'rpc') return message;
  return withCommand(error, byField(byCode(error, message), error.data.field, command));
}

/**
 * The method a message points to, named as the command that calls it, ready to paste (after
 * byField, which would take the JSON's field names for flags).
 */
function withCommand(error: SpoolError, message: string): string {
  const { id } = error.data;
  if (error.code !== ErrorCode.InvalidState || typeof id !== 'string') return message;
  return message.replace(/ \(jobs\.runNow\)\./, `: spool job run-now ${id}`);
}

/** Messages that point to a protocol method rewritten to point to the command that does it. */
function byCode(error: SpoolError, message: string): string {
  const { schedule, queue } = error.data;
  if (error.code === ErrorCode.AlreadyExists && schedule !== undefined) {
    return `A schedule named "${schedule}" exists already. Change it with spool schedule set ${schedule} …, or remove it first (spool schedule rm ${schedule}).`;
  }
  if (error.code === ErrorCode.InvalidState && queue !== undefined) {
    // "(spool queue q delete --force; queues.delete with force: true)": the command alone.
    return message.replace(/; queues\.delete with force: true\)/, ')');
  }
  return message;
}

/** The field at fault, and any protocol-only field the message names, as the CLI's flags. */
function byField(message: string, field: string | undefined, command: string): string {
  let text = message;
  if (field !== undefined) {
    const found = lookup(field, command);
    if (found !== null) {
      // Only the first mention: the field leads the message, and a value quoted later on
      // ("got "bad name"") must not be rewritten.
      const at = new RegExp(`(?<![\\w.-])${escape(found.written)}(\\[\\d+\\])?(?:\\.([^\\s,;:()"]+))?(?![\\w-])`);
      text = text.replace(at, (_whole, _index, entry: string | undefined) => (NAMED_ENTRIES.has(found.field) && entry ? `${found.words} ${entry}` : found.words));
    }
  }
  // Other protocol fields a message mentions ("Give either delayMs or runAt, not both").
  for (const [name, words] of FIELD_WORDS) {
    if (!PROTOCOL_ONLY.test(name)) continue;
    text = text.replace(new RegExp(`(?<![\\w.-])(?:job\\.|filter\\.)?${escape(name)}(\\[\\d+\\])?(?![\\w-])`, 'g'), wordsFor(name, words, command));
  }
  // A sentence starts with a capital, but a URL that leads one ("tls://host:port needs a token") is kept as written.
  return /^[a-z][a-z+.-]*:\/\//.test(text) ? text : text.charAt(0).toUpperCase() + text.slice(1);
}

/**
 * The table entry for a field as the daemon wrote it (`job.payload.env.FOO`, `tags`,
 * `filter.states`): the field's words, and the part of it the message spells out.
 */
function lookup(raw: string, command: string): { field: string; words: string; written: string } | null {
  const prefix = /^(job\.|filter\.)/.exec(raw)?.[0] ?? '';
  const bare = raw.slice(prefix.length).replace(/\[\d+\]/g, '');
  for (const [name, words] of FIELD_WORDS) {
    if (bare === name || bare.startsWith(`${name}.`)) return { field: name, words: wordsFor(name, words, command), written: prefix + name };
  }
  return null;
}

function wordsFor(name: string, words: string, command: string): string {
  return COMMAND_WORDS[command]?.[name] ?? words;
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
