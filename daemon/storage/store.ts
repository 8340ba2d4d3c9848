/**
 * The store's face to the engine: how it runs an operation, and what it is. The job operations
 * themselves are written once in daemon/engine/ops/ as generators of statement calls; a store
 * provides the statements (./statements/) and runs an operation in one of its transactions
 * (`write`, `read`): SQLite synchronously inside the call (./sqlite/runner.ts), PostgreSQL
 * awaiting each statement (./postgres/runner.ts). Nothing here knows a job's rules: the engine
 * computes the policy and passes plain values.
 *
 * Events: a store records what its transaction changed on the `ChangeRecorder` it was made with,
 * marks where each transaction (or savepoint) began, discards what a rollback undid, and flushes
 * only after the outermost commit: a listener never hears of a change that was undone.
 *
 * Group commit: a store whose transactions run synchronously (SQLite: better-sqlite3 is
 * synchronous) offers `batch`, which runs a synchronous function in one transaction; every
 * operation that function starts runs inside it, as a savepoint. A store whose transactions wait
 * for a server (PostgreSQL) leaves `batch` out, and the engine runs them one by one.
 */
import type { Job, OutputLine } from '../../shared/protocol/types';
import type { ChangeSink, Op } from './statements';
import type { HistoryStep } from './statements/history';

/** How a write transaction may be committed (Store.write). */
export interface WriteOptions {
  /**
   * The write only records that the daemon is alive (its heartbeat): a power cut that loses it
   * loses nothing anyone waits for, so the store need not hurry it to disk. SQLite's background
   * checkpointer is not woken for such a commit and copies it back within about a minute (with
   * the next other commit, or at its next look), so that an idle daemon does not make a pass, and
   * the WAL restart with its sync that follows one, every 2 s. PostgreSQL commits it as any other.
   */
  bookkeeping?: boolean;
}

/** The store in neutral words, as `daemon.status` reports it. */
export interface StoreDescription {
  /** Which store: 'sqlite' (later 'postgres'). */
  kind: string;
  /** Where its data is: a file for SQLite, a server and database for PostgreSQL (never a password). */
  location: string;
}

/**
 * What a store records while its transaction runs, and when it may be told. The engine's event
 * hub implements it. Its marks assume one transaction at a time, as SQLite's synchronous calls
 * give; a store whose transactions overlap (PostgreSQL, awaiting a server) keeps each one's
 * changes apart and records them, then flushes, once that transaction has committed.
 */
export interface ChangeRecorder {
  /** A job was created, changed or (deleted) removed. */
  job(job: Job, deleted?: boolean): void;
  /** A queue was created, changed, had jobs removed, or (deleted) was removed. */
  queue(name: string, deleted?: boolean): void;
  /** Output lines were stored for a job. */
  output(jobId: string, queue: string, lines: OutputLine[]): void;
  /** A token was revoked (here, or by another daemon on the same store): its sessions close. */
  tokenRevoked?(name: string): void;
  /** A job took a step the queue history counts (see HistoryStep): tallied only after the commit. */
  step?(step: HistoryStep): void;
  /** Where the transaction (or savepoint) about to start begins, to discard back to. */
  mark(): number;
  /** Forgets what was recorded since `mark`: the transaction or savepoint rolled back. */
  discard(mark: number): void;
  /** The outermost transaction committed: what it recorded may be delivered now. */
  flush(): void;
  /**
   * Another daemon on the same store made jobs claimable (enqueued, retried, freed a concurrency
   * slot): jobs of `queue` (of every queue when null) from `dueAt` on (epoch ms; now when left
   * out). `kinds`: the kinds of the jobs concerned, when known (so that built-in executors are
   * woken only for theirs). Optional: only a store that several daemons share calls it, outside
   * any transaction.
   */
  wake?(queue: string | null, dueAt?: number, kinds?: readonly string[]): void;
  /**
   * Whether anything here listens for job changes made by other daemons. Reading them back costs
   * the store a query per notification, so a store asks first and reads only when this says yes.
   */
  wantsRemoteJobs?(): boolean;
  /**
   * A job another daemon changed, as this store read it back after that daemon's commit:
   * delivered (at the next flush) like a change of this daemon's own, marked as remote.
   * `deleted`: the job was deleted, and `job` is how the notice carried it (without its payload).
   */
  remoteJob?(job: Job, deleted?: boolean): void;
  /**
   * Whether anything here follows the output of job `jobId` of `queue`: the store reads another
   * daemon's new output lines back (a query per batch of lines) only while this says yes, and
   * delivers them through `output`.
   */
  wantsRemoteOutput?(jobId: string, queue: string): boolean;
}

/**
 * Makes a store for an engine: the engine hands over its event hub and its clock (injected by
 * tests; a store reads it for migration timestamps and the times it stamps on rows).
 */
export type StoreFactory = (changes: ChangeRecorder, now: () => number) => Store;

export interface Store {
  /** The store in neutral words, for `daemon.status` and the daemon's log. */
  readonly description: StoreDescription;
  /** The schema migrations opening the store applied (all of them for a new store), and how long they took. */
  readonly migrated: { versions: number[]; ms: number };
  /**
   * Settles once the store is open and migrated, or rejects with why it cannot be (a store that
   * opens asynchronously: PostgreSQL connects to its server). A store that opened inside its
   * factory (SQLite) leaves it out. Every other call waits for the opening itself.
   */
  open?(): Promise<void>;
  /**
   * Runs a job operation (daemon/engine/ops/, through the protocol of ./statements/index.ts) in
   * one write transaction; what it recorded on `changes` is delivered after the commit. A store
   * that reports a refusal (no such job, a lost lease) rejects with the SpoolError the operation
   * threw; anything else is a fault.
   */
  write<T>(op: (changes: ChangeSink) => Op<T>, options?: WriteOptions): Promise<T>;
  /** Runs a reading operation in one read transaction (one consistent snapshot). */
  read<T>(op: (changes: ChangeSink) => Op<T>): Promise<T>;
  /**
   * Group commit, for stores whose transactions run synchronously: runs `fn` in one transaction,
   * and every operation started while it runs inside it, each as a savepoint (one that fails
   * undoes only itself). Changes are flushed after the one commit. `fn` must be synchronous.
   */
  batch?<T>(fn: () => T): T;
  /**
   * How far the engine's clock is ahead of the database server's (ms; negative: behind), over one
   * round trip: a store whose data lives on a server several daemons share (PostgreSQL), where
   * leases and due times written by one daemon's clock are read against another's. A store on
   * this machine (SQLite) leaves it out.
   */
  clockSkew?(): Promise<number>;
  /** Closes the store; nothing may be called after. */
  close(): Promise<void>;
}
