/**
 * The daemon's settings (`DaemonOptions`), the constants their defaults and limits are made of,
 * the check of a store URL, and the environment that carries the store URL to a daemon started in
 * the background. The flags that set them, their defaults and the argument builder are in
 * daemon-flags.ts. It lives in shared/ because the CLI and the extension start the daemon program
 * with these settings and must not import the daemon to do so.
 */

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
  /** Keep the per-queue history of docs/history.md (`--no-history`: keep none). */
  history: boolean;
  /** Days of per-minute queue history kept. */
  historyMinuteDays: number;
  /** Days of per-hour queue history kept. */
  historyHourDays: number;
  /** The daemon's name, the `daemon` label of its metrics: the host's name unless `--name` says otherwise. */
  name: string;
  /** `HOST:PORT` to serve Prometheus metrics on (`/metrics`), or null for none. */
  metrics: string | null;
  /** Serve metrics on an address other than loopback (they name every queue, over plain HTTP). */
  metricsAllowRemote: boolean;
  /** A file (0600, the daemon user's) holding the bearer token a scrape must send, or null for none. */
  metricsToken: string | null;
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
