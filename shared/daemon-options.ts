/**
 * The daemon's settings: what `spoold` (dist/daemon.js) accepts on its command line, with the
 * defaults every entry point (the daemon itself, `spool daemon`, the extension) shares. It lives
 * in shared/ because the CLI starts the daemon program with these arguments and must not import
 * the daemon to do so.
 */
import * as os from 'node:os';
import { defaultDbPath, defaultSocketPath } from './paths';

export type LogFormat = 'text' | 'json';

export interface DaemonOptions {
  socketPath: string;
  /** The SQLite file (the default store); with `store`, the data folder beside it still holds the log and TLS files. */
  dbPath: string;
  /**
   * `postgres://…`: keep the queue in this PostgreSQL database instead of the SQLite file (several
   * daemons may share it). Null for SQLite. Never passed on a command line (a password would show
   * in `ps`): a daemon started in the background gets it as SPOOL_STORE.
   */
  store: string | null;
  /** PostgreSQL only: poll for other daemons' work instead of LISTEN (for transaction poolers). */
  storePoll: boolean;
  /** synchronous=FULL: every commit survives power loss, at a cost in throughput. */
  durable: boolean;
  logFormat: LogFormat;
  /** How long running built-in jobs may take to finish on shutdown before they are stopped. */
  graceMs: number;
  /** Global cap on built-in (shell, http) jobs running at once. */
  maxExecutors: number;
  /**
   * How long a shell job's process group gets between SIGTERM and SIGKILL when it is cancelled,
   * times out or is stopped at shutdown (and a killed daemon's leftovers, at the next start).
   */
  killGraceMs: number;
  /**
   * A schedule tick overdue by more than this when the scheduler sees it counts as missed (the
   * daemon was down or asleep) and follows the schedule's missed-run policy.
   */
  scheduleGraceMs: number;
  /** Commit enqueues that arrive in the same tick in one transaction. */
  groupCommit: boolean;
  /** The daemon's name, the `daemon` label of its metrics: the host's name unless `--name` says otherwise. */
  name: string;
  /** `HOST:PORT` to serve Prometheus metrics on (`/metrics`), or null for none. */
  metrics: string | null;
  /** Serve metrics on an address other than loopback (they name every queue, over plain HTTP). */
  metricsAllowRemote: boolean;
  /** `HOST:PORT` to also listen on over TLS (with tokens), or null for the Unix socket alone. */
  listen: string | null;
  /** The TLS certificate and key (PEM files); null: made on first start in the data folder. */
  tlsCert: string | null;
  tlsKey: string | null;
  /** Backups the daemon takes itself, or null for none (`--backup-every`, `--backup-dir`, `--backup-keep`). */
  backups: ScheduledBackupOptions | null;
}

/** A backup every `everyMs` into `dir` (timestamped names), keeping the newest `keep`. */
export interface ScheduledBackupOptions {
  everyMs: number;
  dir: string;
  keep: number;
}

/** How many scheduled backups are kept when --backup-keep is not given. */
export const DEFAULT_BACKUP_KEEP = 7;
/** The shortest interval between scheduled backups: a copy of a large database takes a while. */
export const MIN_BACKUP_EVERY_MS = 1000;

export const DEFAULT_GRACE_MS = 10_000;
export const DEFAULT_SCHEDULE_GRACE_MS = 5_000;
export const DEFAULT_KILL_GRACE_MS = 5_000;
/** The longest kill grace period a command line may ask for (a timer cannot wait more than ~24.8 days anyway). */
export const MAX_KILL_GRACE_MS = 3_600_000;

export function defaultDaemonOptions(env: NodeJS.ProcessEnv = process.env): DaemonOptions {
  return {
    socketPath: defaultSocketPath(env),
    dbPath: defaultDbPath(env),
    store: env['SPOOL_STORE'] || null,
    storePoll: false,
    durable: false,
    logFormat: 'text',
    graceMs: DEFAULT_GRACE_MS,
    maxExecutors: os.availableParallelism(),
    killGraceMs: DEFAULT_KILL_GRACE_MS,
    scheduleGraceMs: DEFAULT_SCHEDULE_GRACE_MS,
    groupCommit: true,
    // Stable across restarts (a pid would start a new series each time) and the same for every
    // daemon a host runs; two daemons on one host for one Prometheus get a --name each.
    name: os.hostname(),
    metrics: null,
    metricsAllowRemote: false,
    listen: null,
    tlsCert: null,
    tlsKey: null,
    backups: null,
  };
}

/** The URL schemes `--store` takes. */
export const STORE_SCHEMES = ['postgres:', 'postgresql:'] as const;

/** Why `value` is not a store URL `--store` takes, or null when it is. */
export function storeUrlProblem(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'expected a PostgreSQL connection URL, postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE';
  }
  if (!(STORE_SCHEMES as readonly string[]).includes(url.protocol)) return `expected postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE, not a ${url.protocol}// URL (leave --store out to use the SQLite file)`;
  if (url.pathname.replace(/^\//, '') === '') return 'the URL names no database: postgres://USER@HOST:PORT/DATABASE';
  return null;
}

/** The environment a daemon started in the background needs besides its arguments: the store URL, which may hold a password. */
export function optionsToEnv(options: DaemonOptions): Record<string, string> {
  return options.store === null ? {} : { SPOOL_STORE: options.store };
}

/** The command-line arguments that reproduce these options (for a detached start), with optionsToEnv. */
export function optionsToArgs(options: DaemonOptions): string[] {
  const args = ['--socket', options.socketPath, '--db', options.dbPath, '--log-format', options.logFormat];
  args.push('--grace-ms', String(options.graceMs), '--max-executors', String(options.maxExecutors), '--kill-after-ms', String(options.killGraceMs));
  args.push('--schedule-grace-ms', String(options.scheduleGraceMs));
  if (options.storePoll) args.push('--store-poll');
  if (options.durable) args.push('--durable');
  if (!options.groupCommit) args.push('--no-group-commit');
  args.push('--name', options.name);
  if (options.metrics !== null) args.push('--metrics', options.metrics);
  if (options.metricsAllowRemote) args.push('--metrics-allow-remote');
  if (options.listen !== null) args.push('--listen', options.listen);
  if (options.tlsCert !== null) args.push('--tls-cert', options.tlsCert);
  if (options.tlsKey !== null) args.push('--tls-key', options.tlsKey);
  if (options.backups !== null) {
    args.push('--backup-every', `${options.backups.everyMs}ms`, '--backup-dir', options.backups.dir, '--backup-keep', String(options.backups.keep));
  }
  return args;
}
