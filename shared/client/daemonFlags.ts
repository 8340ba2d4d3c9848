/**
 * The daemon's flags, declared once: each row of `DAEMON_FLAGS` names a flag, says what it does,
 * how its argument is read (in the syntax of shared/domain, so durations read like `10s`), which
 * field of `DaemonOptions` it sets, its default and its limits. Everything that reads or writes
 * the daemon's command line is derived from this table:
 *
 * - spoold's parser (daemon/program.ts) and `spool daemon`'s options (cli/commands/daemon.ts)
 *   declare one option per row and hand what commander collected to `daemonOptionsFromFlags`,
 *   so both programs take the same flags, with the same limits and the same error messages;
 * - `defaultDaemonOptions` takes each field's default from its row;
 * - `optionsToArgs` writes the arguments a detached start or the extension's launcher passes.
 *
 * Errors name the flag and say what is allowed; they are thrown as `DaemonFlagError`, which each
 * program prints as its own (`spoold: …`, `spool: …`). The store URL may hold a password, so its
 * row is marked secret: it is read from `--store` or SPOOL_STORE, and never written as an argument
 * (optionsToEnv in daemon-options.ts passes it on in the environment).
 */
import * as os from 'node:os';
import * as path from 'node:path';
import { DEFAULT_BACKUP_KEEP, DEFAULT_GRACE_MS, DEFAULT_KILL_GRACE_MS, DEFAULT_SCHEDULE_GRACE_MS, MAX_KILL_GRACE_MS, MIN_BACKUP_EVERY_MS, storeUrlProblem, type DaemonOptions, type LogFormat } from './daemonOptions';
import { DURATION_UNITS, parseDuration } from '../domain/durations';
import { parsed, refused, type Parsed } from '../domain/parsed';
import { defaultDbPath, defaultSocketPath, type Env } from './paths';

/**
 * The longest wait a flag may ask for: Node's timers wait at most 2^31 − 1 ms (about 24.8 days),
 * and a longer one fires at once instead.
 */
export const MAX_TIMER_MS = 24 * 86_400_000;
/** The most built-in jobs a daemon runs at once: far beyond any machine's cores, and each holds a process. */
export const MAX_EXECUTORS = 1024;
/** The most scheduled backups a daemon keeps. */
export const MAX_BACKUP_KEEP = 10_000;
/** How long `stop` waits for the daemon to finish when --timeout is not given. */
export const DEFAULT_STOP_TIMEOUT_MS = 30_000;

/**
 * `DaemonOptions` with one property per flag: its own fields as they are (without null, which
 * stands for a flag not given), and the scheduled backups' fields as `backups.everyMs` and so on.
 * The table's `field` column names one of these.
 */
export type DaemonFlagFields = { [K in Exclude<keyof DaemonOptions, 'backups'>]: NonNullable<DaemonOptions[K]> } & {
  [K in keyof NonNullable<DaemonOptions['backups']> as `backups.${K}`]: NonNullable<DaemonOptions['backups']>[K];
};
export type DaemonField = keyof DaemonFlagFields;
type Fields = Partial<DaemonFlagFields>;
type BooleanField = { [F in DaemonField]: DaemonFlagFields[F] extends boolean ? F : never }[DaemonField];

/** A daemon flag's argument rejected: the message names the flag and says what is allowed. */
export class DaemonFlagError extends Error {
  override readonly name = 'DaemonFlagError';
}

/** How a flag's argument is read and written back. */
interface Syntax<T> {
  /** The argument's name in help: `duration` for `--grace <duration>`. */
  readonly placeholder: string;
  /** What is allowed, for help and docs (`at most 1h`, `1 to 1024`), or null when any value of the syntax is. */
  readonly allowed: string | null;
  /** The value of `text`, or a whole sentence that names `flag` and says what is allowed. */
  parse(text: string, flag: string): Parsed<T>;
  /** An argument that `parse` reads back as `value`. */
  format(value: T): string;
}

/** `ms` exactly, in the largest unit that divides it: `10s`, `1500ms`, `1h`, `0`. */
export function exactDuration(ms: number): string {
  if (ms === 0) return '0';
  const units = Object.entries(DURATION_UNITS).sort(([, a], [, b]) => b - a);
  for (const [unit, size] of units) if (ms % size === 0) return `${ms / size}${unit}`;
  return `${ms}ms`;
}

function duration(min: number, max: number | null): Syntax<number> {
  const allowed = max === null ? (min > 0 ? `at least ${exactDuration(min)}` : null) : min > 0 ? `${exactDuration(min)} to ${exactDuration(max)}` : `at most ${exactDuration(max)}`;
  return {
    placeholder: 'duration',
    allowed,
    parse(text, flag) {
      const ms = parseDuration(text);
      if (!ms.ok) return refused(`Invalid duration "${text}" for ${flag}: ${ms.message}.`);
      if (ms.value < min) return refused(`${flag} ${text} is too short: at least ${exactDuration(min)}.`);
      if (max !== null && ms.value > max) return refused(`${flag} ${text} is too long: at most ${exactDuration(max)}.`);
      return ms;
    },
    format: exactDuration,
  };
}

function integer(min: number, max: number): Syntax<number> {
  return {
    placeholder: 'n',
    allowed: `${min} to ${max}`,
    parse(text, flag) {
      const n = Number(text);
      if (!/^-?\d+$/.test(text.trim()) || !Number.isSafeInteger(n) || n < min || n > max) return refused(`Invalid ${flag} "${text}": a whole number from ${min} to ${max}.`);
      return parsed(n);
    },
    format: String,
  };
}

function choice<T extends string>(placeholder: string, values: readonly T[]): Syntax<T> {
  const words = `${values.slice(0, -1).join(', ')} or ${values[values.length - 1]}`;
  return {
    placeholder,
    allowed: words,
    parse(text, flag) {
      const value = values.find((v) => v === text);
      return value === undefined ? refused(`Unknown ${flag} "${text}": use ${words}.`) : parsed(value);
    },
    format: (value) => value,
  };
}

/** Any text but an empty one; `why` finishes the refusal, "it names the daemon on its metrics". */
function text(placeholder: string, why: string, resolve = false): Syntax<string> {
  return {
    placeholder,
    allowed: null,
    parse(value, flag) {
      if (value.trim() === '') return refused(`${flag} must not be empty: ${why}.`);
      return parsed(resolve ? path.resolve(value) : value);
    },
    format: (value) => value,
  };
}

/** A PostgreSQL URL. Its refusals never repeat the URL, which may hold a password. */
const storeUrl: Syntax<string> = {
  placeholder: 'url',
  allowed: 'a postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE URL',
  parse(value, flag) {
    const problem = storeUrlProblem(value);
    return problem === null ? parsed(value) : refused(`${flag}: ${problem}.`);
  },
  format: (value) => value,
};

/** One row of the table, with what the programs need to read and write it. */
export interface DaemonFlag {
  /** As typed: `--grace`. */
  readonly flag: `--${string}`;
  /** The argument's name (`duration`), or null for a switch, which takes none. */
  readonly placeholder: string | null;
  /** What it does, in a phrase for help and docs. */
  readonly help: string;
  /** The field of DaemonOptions it sets. */
  readonly field: DaemonField;
  /** The default, as help and docs state it, or null when there is none (the feature is off). */
  readonly defaultText: string | null;
  /** What is allowed, or null when any value of its syntax is. */
  readonly allowed: string | null;
  /** Never written as an argument: the value may hold a password (see optionsToEnv). */
  readonly secret: boolean;
  /** `spool` takes it as its own global option, before or after `daemon`, rather than as an option of `spool daemon`. */
  readonly cliGlobal: boolean;
  /** The property commander stores the flag under (`killAfter` for `--kill-after`, `groupCommit` for `--no-group-commit`). */
  readonly key: string;
  /** Whether commander's value for the flag means it was given. */
  given(value: unknown): boolean;
  /** Sets the field from the value commander collected; a message when the argument is refused. */
  read(fields: Fields, value: unknown): string | null;
  /** Sets the field to its default. */
  fillDefault(fields: Fields, env: Env): void;
  /** The arguments that give the field's value; none when it has none (or it is a switch left off). */
  write(fields: Fields): string[];
}

/** commander's property for a flag: camel case, without the `no-` of a negated switch. */
function keyOf(flag: string): string {
  return flag
    .replace(/^--(no-)?/, '')
    .replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());
}

interface ValueFlagSpec<F extends DaemonField> {
  flag: `--${string}`;
  field: F;
  syntax: Syntax<DaemonFlagFields[F]>;
  help: string;
  /** The default; none when leaving the flag out leaves the feature off. */
  default?: (env: Env) => DaemonFlagFields[F];
  /** How help states a default that depends on the machine or the environment. */
  defaultText?: string;
  secret?: boolean;
  cliGlobal?: boolean;
}

function valueFlag<F extends DaemonField>(spec: ValueFlagSpec<F>): DaemonFlag {
  const { flag, field, syntax } = spec;
  const secret = spec.secret ?? false;
  return {
    flag,
    placeholder: syntax.placeholder,
    help: spec.help,
    field,
    defaultText: spec.defaultText ?? (spec.default === undefined ? null : syntax.format(spec.default({}))),
    allowed: syntax.allowed,
    secret,
    cliGlobal: spec.cliGlobal ?? false,
    key: keyOf(flag),
    given: (value) => typeof value === 'string',
    read(fields, value) {
      const result = syntax.parse(String(value), flag);
      if (!result.ok) return result.message;
      fields[field] = result.value;
      return null;
    },
    fillDefault(fields, env) {
      if (spec.default !== undefined) fields[field] = spec.default(env);
    },
    write(fields) {
      const value = fields[field];
      return value === undefined || secret ? [] : [flag, syntax.format(value)];
    },
  };
}

/** A flag without an argument that sets `field` to `sets`; the field is `!sets` without it. */
function switchFlag(spec: { flag: `--${string}`; field: BooleanField; sets: boolean; help: string }): DaemonFlag {
  const { flag, field, sets } = spec;
  return {
    flag,
    placeholder: null,
    help: spec.help,
    field,
    defaultText: null,
    allowed: null,
    secret: false,
    cliGlobal: false,
    key: keyOf(flag),
    // commander stores a negated switch (`--no-group-commit`) as false when it is given.
    given: (value) => value === sets,
    read(fields) {
      fields[field] = sets;
      return null;
    },
    fillDefault(fields) {
      fields[field] = !sets;
    },
    write: (fields) => (fields[field] === sets ? [flag] : []),
  };
}

/** `--socket`: its own name, because `stop` and `status` take it too. */
export const SOCKET_FLAG: DaemonFlag = valueFlag({
  flag: '--socket',
  field: 'socketPath',
  syntax: text('path', 'give the Unix socket to listen on'),
  help: 'the Unix socket to listen on',
  default: (env) => defaultSocketPath(env),
  defaultText: '$SPOOL_SOCKET, else $XDG_RUNTIME_DIR/spool/spool.sock, else ~/.spool/spool.sock',
  cliGlobal: true,
});

/** The flags that start a daemon, in the order help lists them. */
export const DAEMON_FLAGS: readonly DaemonFlag[] = [
  SOCKET_FLAG,
  valueFlag({
    flag: '--db',
    field: 'dbPath',
    syntax: text('path', 'give the SQLite database file'),
    help: 'the SQLite database file; the log and TLS files go in its folder',
    default: (env) => defaultDbPath(env),
    defaultText: '$SPOOL_DB, else $XDG_DATA_HOME/spool/spool.db',
  }),
  valueFlag({
    flag: '--store',
    field: 'store',
    syntax: storeUrl,
    help: 'keep the queue in this PostgreSQL database instead of the SQLite file; several daemons may share it',
    defaultText: '$SPOOL_STORE, else the SQLite file',
    secret: true,
  }),
  switchFlag({ flag: '--store-poll', field: 'storePoll', sets: true, help: "poll for other daemons' work instead of LISTEN/NOTIFY, with --store (for PgBouncer in transaction mode)" }),
  switchFlag({ flag: '--durable', field: 'durable', sets: true, help: 'every commit survives power loss (SQLite synchronous=FULL), at a cost in throughput' }),
  valueFlag({ flag: '--log-format', field: 'logFormat', syntax: choice<LogFormat>('format', ['text', 'json']), help: 'how log lines on stderr are written', default: () => 'text' }),
  valueFlag({
    flag: '--grace',
    field: 'graceMs',
    syntax: duration(0, MAX_TIMER_MS),
    help: 'on shutdown, how long running built-in jobs may take to finish before they are stopped',
    default: () => DEFAULT_GRACE_MS,
  }),
  valueFlag({
    flag: '--max-executors',
    field: 'maxExecutors',
    syntax: integer(1, MAX_EXECUTORS),
    help: 'built-in (shell, http) jobs running at once',
    default: () => os.availableParallelism(),
    defaultText: 'the number of CPUs',
  }),
  valueFlag({
    flag: '--kill-after',
    field: 'killGraceMs',
    syntax: duration(0, MAX_KILL_GRACE_MS),
    help: 'a cancelled, timed-out or stopped shell job gets SIGKILL this long after SIGTERM',
    default: () => DEFAULT_KILL_GRACE_MS,
  }),
  valueFlag({
    flag: '--schedule-grace',
    field: 'scheduleGraceMs',
    syntax: duration(0, null),
    help: "a schedule tick overdue by more than this counts as missed and follows the schedule's missed-run policy",
    default: () => DEFAULT_SCHEDULE_GRACE_MS,
  }),
  switchFlag({ flag: '--no-group-commit', field: 'groupCommit', sets: false, help: 'commit each enqueue in a transaction of its own, instead of the enqueues that arrive in the same tick together' }),
  switchFlag({ flag: '--no-history', field: 'history', sets: false, help: 'keep no per-queue history (stats.history, spool stats --history): nothing is counted or written' }),
  valueFlag({
    flag: '--history-minute-days',
    field: 'historyMinuteDays',
    syntax: integer(2, 3650),
    help: 'days of per-minute queue history kept',
    default: () => 7,
  }),
  valueFlag({
    flag: '--history-hour-days',
    field: 'historyHourDays',
    syntax: integer(2, 36500),
    help: 'days of per-hour queue history kept',
    default: () => 90,
  }),
  valueFlag({
    flag: '--name',
    field: 'name',
    syntax: text('name', 'it names the daemon on its metrics'),
    help: "the daemon's name, the value of the daemon label on its metrics",
    // Stable across restarts (a pid would start a new series each time) and the same for every
    // daemon a host runs; two daemons on one host for one Prometheus get a --name each.
    default: () => os.hostname(),
    defaultText: "the host's name",
  }),
  // The daemon checks the address (HOST:PORT, loopback unless allowed) when it starts, and says what is wrong.
  valueFlag({
    flag: '--metrics',
    field: 'metrics',
    syntax: text('host:port', 'give HOST:PORT, e.g. 127.0.0.1:9464'),
    help: 'serve Prometheus metrics at http://HOST:PORT/metrics, on loopback only unless --metrics-allow-remote',
  }),
  switchFlag({ flag: '--metrics-allow-remote', field: 'metricsAllowRemote', sets: true, help: 'allow --metrics on an address other than loopback (plain HTTP: keep it behind a proxy)' }),
  // The daemon reads and checks the file (the user's own, 0600) when it starts.
  valueFlag({
    flag: '--metrics-token',
    field: 'metricsToken',
    syntax: text('file', 'give the file holding the token', true),
    help: 'a file (0600) holding a token that scrapes of --metrics must send as "Authorization: Bearer TOKEN"',
  }),
  // Checked (HOST:PORT, both or neither of cert and key) by the daemon when it starts, which says which flag is at fault.
  valueFlag({
    flag: '--listen',
    field: 'listen',
    syntax: text('host:port', 'give HOST:PORT, e.g. 0.0.0.0:7420'),
    help: 'also listen on TCP, over TLS only, for clients with a token (spool token create)',
  }),
  valueFlag({
    flag: '--tls-cert',
    field: 'tlsCert',
    syntax: text('file', 'give a PEM file', true),
    help: 'the TLS certificate (PEM) for --listen; without it one is made on the first start in the data folder',
  }),
  valueFlag({ flag: '--tls-key', field: 'tlsKey', syntax: text('file', 'give a PEM file', true), help: 'the private key (PEM) of --tls-cert' }),
  valueFlag({
    flag: '--backup-every',
    field: 'backups.everyMs',
    syntax: duration(MIN_BACKUP_EVERY_MS, MAX_TIMER_MS),
    help: 'take a backup of the SQLite database this often (e.g. 6h), into --backup-dir',
  }),
  valueFlag({
    flag: '--backup-dir',
    field: 'backups.dir',
    syntax: text('folder', 'give the folder scheduled backups go to', true),
    help: 'where scheduled backups go (timestamped names, each with a .sha256)',
  }),
  valueFlag({
    flag: '--backup-keep',
    field: 'backups.keep',
    syntax: integer(1, MAX_BACKUP_KEEP),
    help: 'how many scheduled backups to keep, the newest',
    default: () => DEFAULT_BACKUP_KEEP,
  }),
];

/** A flag that is not a daemon setting: how the command runs, or what `stop` does. */
export interface CommandFlag {
  readonly flag: `--${string}`;
  readonly placeholder: string | null;
  readonly help: string;
  readonly defaultText: string | null;
  readonly allowed: string | null;
  /** The subcommand it belongs to, or null for a start. */
  readonly command: 'stop' | null;
}

/** `--detach`: start in the background and return once the daemon answers. */
export const DETACH_FLAG: CommandFlag = {
  flag: '--detach',
  placeholder: null,
  help: 'run in the background (logging to daemon.log beside spool.db, or DB.log beside another database) and return once the daemon answers',
  defaultText: null,
  allowed: null,
  command: null,
};

const stopTimeout = duration(1, MAX_TIMER_MS);

/** `stop --timeout`: how long to wait for the daemon to finish shutting down. */
export const STOP_TIMEOUT_FLAG: CommandFlag = {
  flag: '--timeout',
  placeholder: stopTimeout.placeholder,
  help: 'how long to wait for the daemon to finish shutting down, which takes up to its grace period plus its kill grace period',
  defaultText: exactDuration(DEFAULT_STOP_TIMEOUT_MS),
  allowed: stopTimeout.allowed,
  command: 'stop',
};

/** `stop --timeout`'s value, or the default when it is not given. */
export function parseStopTimeout(value: string | undefined): number {
  if (value === undefined) return DEFAULT_STOP_TIMEOUT_MS;
  const ms = stopTimeout.parse(value, STOP_TIMEOUT_FLAG.flag);
  if (!ms.ok) throw new DaemonFlagError(ms.message);
  return ms.value;
}

/** `--grace <duration>`, `--durable`: how help shows a flag. */
export function flagUsage(flag: { flag: string; placeholder: string | null }): string {
  return flag.placeholder === null ? flag.flag : `${flag.flag} <${flag.placeholder}>`;
}

/** A flag's help with its default and what is allowed: `… (default: 10s; at most 24d)`. */
export function flagHelp(flag: { help: string; defaultText: string | null; allowed: string | null }): string {
  const notes = [flag.defaultText === null ? null : `default: ${flag.defaultText}`, flag.allowed].filter((note) => note !== null);
  return notes.length === 0 ? flag.help : `${flag.help} (${notes.join('; ')})`;
}

/** Every field's default, as the table gives it. */
function defaultFields(env: Env): Fields {
  const fields: Fields = {};
  for (const flag of DAEMON_FLAGS) flag.fillDefault(fields, env);
  const store = env['SPOOL_STORE'];
  if (store) fields.store = store;
  return fields;
}

function need<F extends DaemonField>(fields: Fields, field: F): DaemonFlagFields[F] {
  const value = fields[field];
  if (value === undefined) throw new Error(`The daemon flag table gives ${field} no default.`);
  return value;
}

/** The options the fields hold: null where a field was left out, backups when their interval and folder are given. */
function toOptions(fields: Fields): DaemonOptions {
  const everyMs = fields['backups.everyMs'];
  const dir = fields['backups.dir'];
  return {
    socketPath: need(fields, 'socketPath'),
    dbPath: need(fields, 'dbPath'),
    store: fields.store ?? null,
    storePoll: need(fields, 'storePoll'),
    durable: need(fields, 'durable'),
    logFormat: need(fields, 'logFormat'),
    graceMs: need(fields, 'graceMs'),
    maxExecutors: need(fields, 'maxExecutors'),
    killGraceMs: need(fields, 'killGraceMs'),
    scheduleGraceMs: need(fields, 'scheduleGraceMs'),
    groupCommit: need(fields, 'groupCommit'),
    history: need(fields, 'history'),
    historyMinuteDays: need(fields, 'historyMinuteDays'),
    historyHourDays: need(fields, 'historyHourDays'),
    name: need(fields, 'name'),
    metrics: fields.metrics ?? null,
    metricsAllowRemote: need(fields, 'metricsAllowRemote'),
    metricsToken: fields.metricsToken ?? null,
    listen: fields.listen ?? null,
    tlsCert: fields.tlsCert ?? null,
    tlsKey: fields.tlsKey ?? null,
    backups: everyMs !== undefined && dir !== undefined ? { everyMs, dir, keep: need(fields, 'backups.keep') } : null,
  };
}

/** The fields of (some of) the options: the inverse of toOptions, leaving out what is null. */
function toFields(options: Partial<DaemonOptions>): Fields {
  const { backups, ...rest } = options;
  const fields: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(rest)) if (value !== null && value !== undefined) fields[key] = value;
  if (backups) {
    fields['backups.everyMs'] = backups.everyMs;
    fields['backups.dir'] = backups.dir;
    fields['backups.keep'] = backups.keep;
  }
  return fields as Fields;
}

/** The settings of a daemon started without flags: each row's default, and SPOOL_STORE. */
export function defaultDaemonOptions(env: Env = process.env): DaemonOptions {
  return toOptions(defaultFields(env));
}

/** The flags of the table given in `values` (what commander collected), as typed. */
export function givenDaemonFlags(values: Readonly<Record<string, unknown>>): string[] {
  return DAEMON_FLAGS.filter((flag) => flag.given(values[flag.key])).map((flag) => flag.flag);
}

/**
 * The daemon's settings from the flags commander collected into `values` (keyed by each row's
 * `key`), with the defaults for the rest. Throws DaemonFlagError for an argument a row refuses,
 * and for flags that do not go together.
 */
export function daemonOptionsFromFlags(values: Readonly<Record<string, unknown>>, env: Env = process.env): DaemonOptions {
  const fields = defaultFields(env);
  const given = new Set<string>();
  for (const flag of DAEMON_FLAGS) {
    const value = values[flag.key];
    if (!flag.given(value)) continue;
    const problem = flag.read(fields, value);
    if (problem !== null) throw new DaemonFlagError(problem);
    given.add(flag.flag);
  }
  if (fields.store !== undefined && !given.has('--store')) {
    const problem = storeUrlProblem(fields.store);
    if (problem !== null) throw new DaemonFlagError(`SPOOL_STORE: ${problem}.`);
  }
  if (given.has('--store-poll') && fields.store === undefined) {
    throw new DaemonFlagError('--store-poll works with the PostgreSQL store only: give --store postgres://… (or SPOOL_STORE) too.');
  }
  if (fields.store !== undefined && (given.has('--durable') || given.has('--backup-every'))) {
    throw new DaemonFlagError(
      `${given.has('--durable') ? '--durable' : '--backup-every'} is for the SQLite store; on PostgreSQL, durability is the server's synchronous_commit and backups are pg_dump's.`,
    );
  }
  const backupFlags = ['--backup-every', '--backup-dir', '--backup-keep'];
  if (backupFlags.some((flag) => given.has(flag)) && !(given.has('--backup-every') && given.has('--backup-dir'))) {
    throw new DaemonFlagError('Scheduled backups need both --backup-every (how often, e.g. 6h) and --backup-dir (the folder).');
  }
  return toOptions(fields);
}

/**
 * The arguments that reproduce `options` on spoold's command line (for a detached start, with
 * optionsToEnv), or, given some of the options, the arguments for those alone (the extension
 * names the socket and the database and leaves the rest to the daemon's defaults). The store URL
 * is never among them.
 */
export function optionsToArgs(options: Partial<DaemonOptions>): string[] {
  const fields = toFields(options);
  return DAEMON_FLAGS.flatMap((flag) => flag.write(fields));
}

/** The socket `--socket` names in `values`, else the default one (for `stop` and `status`, which take no other setting). */
export function socketPathFromFlags(values: Readonly<Record<string, unknown>>, env: Env = process.env): string {
  const fields: Fields = {};
  SOCKET_FLAG.fillDefault(fields, env);
  if (SOCKET_FLAG.given(values[SOCKET_FLAG.key])) {
    const problem = SOCKET_FLAG.read(fields, values[SOCKET_FLAG.key]);
    if (problem !== null) throw new DaemonFlagError(problem);
  }
  return need(fields, 'socketPath');
}
