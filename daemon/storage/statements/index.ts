/**
 * The store's face to the engine: every statement a store provides, one method each (as River's
 * driver interface has one method per statement), and the protocol by which a job operation,
 * written once in daemon/engine/ops/, asks a store to run them.
 *
 * An operation is a generator that yields statement calls and receives their results:
 *
 *     const job = yield* sql('jobGetForUpdate', id);
 *
 * The SQLite store drives it synchronously inside one BEGIN IMMEDIATE transaction (no await
 * anywhere, so group commit keeps every batched call in one commit); the PostgreSQL store drives
 * the same generator asynchronously, awaiting each statement on one pooled connection. Why a
 * generator rather than two copies or an async function: an async function cannot run inside
 * a SQLite transaction without spanning an await, and two copies drift (they did: 54 functions
 * written twice). A `next()` per statement costs well under a microsecond; a statement costs
 * 4–18 µs on SQLite.
 *
 * The methods' signatures are the values a statement takes and returns, synchronous as SQLite
 * implements them; PostgreSQL implements each as `(tx, ...args) => Promise<result>`. Parameter
 * and row types are owned here (daemon/storage/), never imported from the engine: the engine
 * computes the policy (backoff, next run time, lease, limits) and passes plain values.
 */
import type { AttemptSql } from './attempts';
import type { ClaimSql } from './claim';
import type { DaemonSql } from './daemons';
import type { DependencySql } from './dependencies';
import type { ExpirySql } from './expiry';
import type { HistorySql } from './history';
import type { GroupSql } from './groups';
import type { GroupPruneSql } from './groupPrune';
import type { JobSql } from './jobs';
import type { ListSql } from './list';
import type { OutputSql } from './output';
import type { ProjectSql } from './projects';
import type { QueueSql } from './queues';
import type { RunSql } from './runs';
import type { ScheduleSql } from './schedules';
import type { TokenSql } from './tokens';
import type { UniqueSql } from './unique';
import type { UpkeepSql } from './upkeep';
import type { WorkerSql } from './workers';
import type { WorkflowSql } from './workflows';

export interface Statements extends DependencySql, GroupSql, JobSql, ListSql, AttemptSql, ClaimSql, RunSql, OutputSql, QueueSql, ScheduleSql, ProjectSql, WorkerSql, DaemonSql, TokenSql, UpkeepSql, WorkflowSql, UniqueSql, ExpirySql, HistorySql, GroupPruneSql {}

/** The name of a statement. */
export type StatementName = keyof Statements;

/** One statement call an operation yields: its name and its arguments. */
export type StatementCall = { [K in StatementName]: { readonly name: K; readonly args: Parameters<Statements[K]> } }[StatementName];

/**
 * A nested operation run inside a savepoint: if it throws, only its own writes (and the changes
 * it recorded) are undone, and the caller receives the error as a value.
 */
export interface SavepointCall {
  readonly name: '$savepoint';
  readonly op: Op<unknown>;
}

export type Call = StatementCall | SavepointCall;

/** A job operation: a generator of statement calls that returns the operation's result. */
export type Op<T> = Generator<Call, T, unknown>;

/** What a savepoint gives back: the nested operation's result, or what it threw. */
export type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

/** Runs one statement: `const job = yield* sql('jobGet', id)`. */
export function* sql<K extends StatementName>(name: K, ...args: Parameters<Statements[K]>): Generator<Call, ReturnType<Statements[K]>, unknown> {
  // The cast is the protocol's one trust point: the runner answers a call with what the
  // statement of that name returned.
  return (yield { name, args } as unknown as StatementCall) as ReturnType<Statements[K]>;
}

/** Runs `op` in a savepoint: a failure undoes only `op`'s writes and comes back as a value. */
export function* savepoint<T>(op: Op<T>): Generator<Call, Settled<T>, unknown> {
  return (yield { name: '$savepoint', op }) as Settled<T>;
}

/**
 * Hands what a call came to back to the operation, the same way for both runners: a
 * statement's value is the value of its `yield`, and its error is thrown at the `yield`; a
 * savepoint's outcome comes back as a value (Settled), whatever it was. `ok` says which `value`
 * is, a result or what was thrown.
 */
export function resume<T>(op: Op<T>, call: Call, ok: boolean, value: unknown): IteratorResult<Call, T> {
  if (call.name === '$savepoint') return op.next(ok ? { ok: true, value } : { ok: false, error: value });
  return ok ? op.next(value) : op.throw(value);
}

/** A store's implementation of the statements, as PostgreSQL writes it: the transaction first, a promise of the result. */
export type AsyncStatements<Tx> = { [K in StatementName]: (tx: Tx, ...args: Parameters<Statements[K]>) => Promise<ReturnType<Statements[K]>> };

/** A part of AsyncStatements, as one file of a store implements it. */
export type AsyncPart<Tx, Part> = { [K in keyof Part]: Part[K] extends (...args: infer A) => infer R ? (tx: Tx, ...args: A) => Promise<R> : never };

/**
 * What an operation records while it runs: jobs, queues and output lines it changed. The store
 * holds them back until its transaction commits (and drops what a rollback undid).
 */
export type { ChangedJob } from './attempts';

export interface ChangeSink {
  /** A job was created, changed or (deleted) removed. */
  job(job: import('./attempts').ChangedJob, deleted?: boolean): void;
  /** A queue was created, changed, had jobs removed, or (deleted) was removed. */
  queue(name: string, deleted?: boolean): void;
  /** Output lines were stored for a job. */
  output(jobId: string, queue: string, lines: import('../../../shared/protocol/types').OutputLine[]): void;
  /** A token was revoked: the sessions logged in with it close, on every daemon of the store. */
  tokenRevoked?(name: string): void;
  /**
   * A job took a step the queue history counts (enqueued, started, ended an attempt): delivered
   * after the commit to the engine's history tally, dropped with a rollback. No statement runs.
   */
  step?(step: import('./history').HistoryStep): void;
}
