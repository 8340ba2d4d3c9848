/**
 * The connection side of the PostgreSQL store: the pool, how a transaction runs, and which
 * driver errors mean "the database cannot be reached" (the daemon answers those with
 * StoreUnavailable and keeps running; the pool reconnects on the next call).
 */
import pg from 'pg';
import { SpoolError, errorMessage } from '../../../shared/protocol/errors';
import { ErrorCode } from '../../../shared/protocol';
import type { Job, OutputLine } from '../../../shared/protocol/types';
import type { ChangeRecorder } from '../store';
import type { HistoryStep } from '../statements/history';
import { toRow, type Row } from '../rows';

// BIGINT (times in epoch ms, counts) as numbers: every value Spool stores fits in 2^53.
pg.types.setTypeParser(20, (v) => Number(v));
// NUMERIC (sum() of BIGINT) as numbers too.
pg.types.setTypeParser(1700, (v) => Number(v));

export type Queryable = pg.Pool | pg.PoolClient | pg.Client;

/** What a transaction changed, kept apart from every other transaction until it commits. */
export class TxChanges {
  private readonly calls: Array<(recorder: ChangeRecorder) => void> = [];
  /*
   * What the notification sent with the commit tells other daemons (./notify.ts). A savepoint
   * rolled back does not take its entries out again: the worst that comes of it is a wakeup
   * that finds nothing to claim, or a job read back unchanged.
   */
  /**
   * Queues whose jobs may be claimable, each with when: the earliest run time of its waiting
   * jobs, or 0 when a job ended (a concurrency slot may have come free), as the daemon's own
   * jobChanged wakes claims.
   */
  readonly wokenQueues = new Map<string, number>();
  /** The kinds of the jobs behind those wakeups: a daemon wakes its built-in executors only for theirs. */
  readonly wokenKinds = new Set<string>();
  /**
   * Jobs that changed and still exist, as last recorded (other daemons' subscribers read them
   * back; this daemon's feed notes them as already seen, see ChangeFeed.noteLocal).
   */
  readonly changedJobs = new Map<string, Job>();
  /** Queues of those jobs (the compact form, when the ids do not fit in one notification). */
  readonly changedJobQueues = new Set<string>();
  /** The earliest update time among those jobs: where the compact form's read-back starts. */
  changedSince = Infinity;
  /** Queues created, changed or (true) deleted. */
  readonly changedQueues = new Map<string, boolean>();
  /** Jobs deleted, as they were last: other daemons cannot read them back, so the notice carries them. */
  readonly deletedJobs = new Map<string, Job>();
  /** Jobs that got output lines: queue, and the first line's seq (a follower elsewhere reads from there). */
  readonly outputJobs = new Map<string, { queue: string; first: number }>();
  /** Tokens revoked: every daemon closes the sessions logged in with them. */
  readonly revokedTokens = new Set<string>();

  step(step: HistoryStep): void {
    this.calls.push((r) => r.step?.(step));
  }

  job(job: Job, deleted = false): void {
    this.calls.push((r) => r.job(job, deleted));
    if (deleted) {
      this.changedJobs.delete(job.id);
      this.deletedJobs.set(job.id, job);
      return;
    }
    this.changedJobs.set(job.id, job);
    this.changedJobQueues.add(job.queue);
    this.changedSince = Math.min(this.changedSince, job.updatedAt);
    if (job.state === 'running') return;
    const due = job.state === 'queued' || job.state === 'retrying' ? job.runAt : 0;
    const known = this.wokenQueues.get(job.queue);
    this.wokenQueues.set(job.queue, known === undefined ? due : Math.min(known, due));
    this.wokenKinds.add(job.kind);
  }

  queue(name: string, deleted = false): void {
    this.calls.push((r) => r.queue(name, deleted));
    this.changedQueues.set(name, deleted);
  }

  output(jobId: string, queue: string, lines: OutputLine[]): void {
    if (lines.length === 0) return;
    this.calls.push((r) => r.output(jobId, queue, lines));
    let first = Infinity;
    for (const line of lines) first = Math.min(first, line.seq);
    const known = this.outputJobs.get(jobId);
    this.outputJobs.set(jobId, { queue, first: Math.min(known?.first ?? Infinity, first) });
  }

  tokenRevoked(name: string): void {
    this.calls.push((r) => r.tokenRevoked?.(name));
    this.revokedTokens.add(name);
  }

  /** Savepoint support: how far to roll back to. */
  mark(): number {
    return this.calls.length;
  }

  discard(mark: number): void {
    this.calls.length = Math.min(this.calls.length, mark);
  }

  get empty(): boolean {
    return this.calls.length === 0;
  }

  /** After the commit: hands everything to the engine's recorder, then lets it deliver. */
  deliver(recorder: ChangeRecorder): void {
    if (this.calls.length === 0) return;
    for (const call of this.calls) call(recorder);
    recorder.flush();
  }
}

/**
 * One transaction (or, outside `write`/`read`, one statement on the pool): its queries, the
 * engine's clock, and the changes it records. Every statement (./jobs.ts, ./queues.ts, …) takes one.
 */
export class PgTx {
  readonly changes = new TxChanges();

  constructor(
    readonly client: Queryable,
    /** The engine's clock (injected by tests). */
    readonly now: () => number,
  ) {}

  /** Rows of a statement, each read by column name through the typed getters of ../rows. */
  async rows(text: string, values: readonly unknown[] = []): Promise<Row[]> {
    const result = await this.client.query(text, values as unknown[]);
    return result.rows.map((r: unknown) => toRow(r, 'PostgreSQL'));
  }

  /** The first row, or undefined. */
  async row(text: string, values: readonly unknown[] = []): Promise<Row | undefined> {
    return (await this.rows(text, values))[0];
  }

  /** Runs a statement for its effect; how many rows it touched. */
  async run(text: string, values: readonly unknown[] = []): Promise<number> {
    const result = await this.client.query(text, values as unknown[]);
    return result.rowCount ?? 0;
  }

  /** Runs `fn` inside a savepoint: if it throws, only its own work (and recorded changes) is undone. */
  async savepoint<T>(fn: () => Promise<T>): Promise<T> {
    const mark = this.changes.mark();
    await this.client.query('SAVEPOINT spool_item');
    try {
      const result = await fn();
      await this.client.query('RELEASE SAVEPOINT spool_item');
      return result;
    } catch (error) {
      await this.client.query('ROLLBACK TO SAVEPOINT spool_item');
      this.changes.discard(mark);
      throw error;
    }
  }

  job(job: Job, deleted = false): void {
    this.changes.job(job, deleted);
  }

  step(step: HistoryStep): void {
    this.changes.step(step);
  }

  queue(name: string, deleted = false): void {
    this.changes.queue(name, deleted);
  }

  output(jobId: string, queue: string, lines: OutputLine[]): void {
    this.changes.output(jobId, queue, lines);
  }

  tokenRevoked(name: string): void {
    this.changes.tokenRevoked(name);
  }
}

/** SQLSTATE classes and codes that mean the server is gone or refusing connections. */
const UNAVAILABLE_CODES = new Set(['57P01', '57P02', '57P03', '53300', '08000', '08001', '08003', '08004', '08006', '08007', '08P01']);
const UNAVAILABLE_ERRNOS = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);

/** True when the error says the database could not be reached (rather than refusing the statement). */
export function isUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code: unknown = Reflect.get(error, 'code');
  if (typeof code === 'string' && (UNAVAILABLE_CODES.has(code) || UNAVAILABLE_ERRNOS.has(code))) return true;
  const message = error.message;
  return /Connection terminated|connection timeout|Client has encountered a connection error|Client was closed|terminating connection/i.test(message);
}

/** Serialization failure or deadlock: the transaction may simply be run again. */
export function isRetryable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code: unknown = Reflect.get(error, 'code');
  return code === '40001' || code === '40P01';
}

export function storeUnavailable(location: string, error: unknown): SpoolError {
  const why = errorMessage(error);
  return new SpoolError(
    ErrorCode.StoreUnavailable,
    `The store is unavailable: the daemon cannot reach PostgreSQL at ${location} (${why}). Nothing of this request was stored; the daemon reconnects by itself, so send it again shortly.`,
    { store: 'postgres', location },
  );
}

/**
 * Why a daemon cannot start on PostgreSQL: the database is not reached at all, said in words a
 * person can act on (refused, unknown host, no answer, authentication, missing database). Unlike
 * an outage while running, nothing reconnects: the daemon stops.
 */
export function cannotOpen(location: string, error: unknown): SpoolError {
  return new SpoolError(ErrorCode.StoreUnavailable, `The daemon cannot reach PostgreSQL at ${location}, so it did not start: ${whyUnreachable(error)}`, { store: 'postgres', location });
}

function whyUnreachable(error: unknown): string {
  const said = errorMessage(error);
  const code: unknown = error instanceof Error ? Reflect.get(error, 'code') : undefined;
  switch (code) {
    case 'ECONNREFUSED':
      return `the connection was refused (${said}): no server listens there. Start PostgreSQL, or check the host and port in --store.`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `the host is unknown (${said}). Check the host name in --store.`;
    case 'ETIMEDOUT':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `the host does not answer (${said}). Check the host in --store and the network between them.`;
    case '28P01':
    case '28000':
      return `authentication failed (${said}). Check the user and password in --store (or PGPASSWORD).`;
    case '3D000':
      return `the database does not exist (${said}). Create it first (createdb), or name another in --store.`;
  }
  if (/timeout/i.test(said)) return `it did not answer in time (${said}). Check the host and port in --store.`;
  return `${said}.`;
}

/** The connection string without its password, for logs and `daemon.status`. */
export function describeUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.password = '';
    const host = parsed.host || parsed.searchParams.get('host') || 'localhost';
    return `postgres://${parsed.username ? `${decodeURIComponent(parsed.username)}@` : ''}${host}${parsed.pathname}`;
  } catch {
    return 'postgres://(unreadable connection string)';
  }
}
