/**
 * The PostgreSQL store (../store.ts), for a team's daemons sharing one queue. A pool of connections
 * to one database; every operation runs in its own transaction on one pooled connection and
 * awaits the server, so transactions of one daemon overlap, and several daemons share the
 * database. What each transaction changed is kept apart (TxChanges) and handed to the engine's
 * recorder only after its commit.
 *
 * The factory is synchronous, as the interface's is; connecting and migrating start at once and
 * `open()` (awaited by the daemon before it listens) reports their failure. Every call awaits
 * the same opening first.
 *
 * The statements live in one file per table (./jobs.ts, ./queues.ts, …), gathered in
 * ./statements.ts; ./runner.ts drives an operation's generator over them, awaiting each.
 */
import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import pg from 'pg';
import type { ChangeRecorder, Store, StoreDescription, StoreFactory } from '../store';
import { PgTx, cannotOpen, describeUrl, isRetryable, isUnavailable, storeUnavailable } from './db';
import { runAsync } from './runner';
import { postgresStatements } from './statements';
import type { ChangeSink, Op } from '../statements';
import { migratePostgres } from './migrations';
import { encodeNotice, CHANNEL } from './notice';
import { ChangeFeed } from './notify';
import { errorMessage } from '../../../shared/protocol/errors';

/** How to open the PostgreSQL store. */
export interface PostgresOptions {
  /**
   * postgres://user[:password]@host:port/database (libpq's URL form); or a function that finds it
   * (tests make a fresh database first, while the store's factory must return at once).
   */
  url: string | (() => Promise<string>);
  /** Connections in the pool (default 10). */
  poolSize?: number;
  /**
   * Told once when the database stops answering (`up` false, with why) and once when it answers
   * again: the daemon logs an outage as two lines, not one per failed request.
   */
  availability?: (up: boolean, detail: string) => void;
  /**
   * Poll-only mode (`spool daemon --store-poll`), for a transaction pooler such as PgBouncer in
   * transaction mode, through which LISTEN hears nothing: no listening connection; every
   * `pollMs` the store looks for due jobs to wake claims and, while a client here follows job
   * events, for jobs other daemons changed. It trades latency (a job enqueued on another daemon
   * waits up to `pollMs` for a claim; without LISTEN, a few milliseconds) and a query per poll.
   * Notices are still sent, so daemons that do LISTEN hear this one at once.
   */
  poll?: boolean;
  /** How often poll-only mode polls, in ms (default 250). */
  pollMs?: number;
  /**
   * With LISTEN: how often due jobs are looked for anyway, in ms (default 2000), in case a notice
   * was lost. Tests lengthen it to see what LISTEN alone does.
   */
  fallbackMs?: number;
}

/** Poll-only mode's default interval: a claim waits at most this long for another daemon's enqueue. */
export const DEFAULT_POLL_MS = 250;
const DEFAULT_FALLBACK_MS = 2000;

/** The factory an engine is given to open this store. */
export function postgresStore(options: PostgresOptions): StoreFactory {
  return (changes, now) => new PostgresStore(options, changes, now);
}

/**
 * Sends `begin` (BEGIN) without waiting for its answer, then starts `work`: on a pipelined
 * connection the transaction's first statement follows BEGIN at once, in the same write (the
 * socket is corked until `work` has sent it, if it sends it before its first await), and both are
 * answered in one round trip. The caller awaits BEGIN's promise once the work is done; a BEGIN
 * that failed (only a connection lost or a server stopping make it fail) failed the first
 * statement too.
 */
function withBegin<T>(client: pg.PoolClient, begin: string, work: () => Promise<T>): [Promise<unknown>, Promise<T>] {
  // node-postgres keeps its socket on `connection.stream`, not in its typings.
  const connection: unknown = Reflect.get(client, 'connection');
  const stream: unknown = typeof connection === 'object' && connection !== null ? Reflect.get(connection, 'stream') : undefined;
  const socket = stream instanceof Writable ? stream : undefined;
  socket?.cork();
  try {
    const begun = client.query(begin);
    // Awaited by the caller after the transaction's work; a rejection meanwhile is not unhandled.
    begun.catch(() => undefined);
    return [begun, work()];
  } finally {
    socket?.uncork();
  }
}

/** A transaction that fails with a serialization failure or deadlock runs again, up to this many times. */
const MAX_TRIES = 5;

export class PostgresStore implements Store {
  private descriptionValue: StoreDescription;
  private migratedValue = { versions: [] as number[], ms: 0 };
  private poolValue: pg.Pool | null = null;
  private readonly opening: Promise<void>;
  private closed = false;
  /** This store's id in the notices it sends: its own feed ignores them. */
  readonly instanceId = randomUUID();
  /** What other daemons on the database do (./notify.ts); set once open. */
  private feedValue: ChangeFeed | null = null;

  constructor(
    readonly options: PostgresOptions,
    private readonly changes: ChangeRecorder,
    /** The engine's clock (injected by tests). */
    private readonly now: () => number,
  ) {
    this.descriptionValue = { kind: 'postgres', location: typeof options.url === 'string' ? describeUrl(options.url) : 'postgres://' };
    this.opening = this.openNow();
    // Reported by open() and by every call; not an unhandled rejection meanwhile.
    this.opening.catch(() => undefined);
  }

  get migrated(): { versions: number[]; ms: number } {
    return this.migratedValue;
  }

  get description(): StoreDescription {
    return this.descriptionValue;
  }

  /** The feed of other daemons' changes; only once open() has settled. */
  get feed(): ChangeFeed {
    if (this.feedValue === null) throw new Error('The PostgreSQL store is not open yet');
    return this.feedValue;
  }

  /** The pool; only once open() has settled. */
  get pool(): pg.Pool {
    if (this.poolValue === null) throw new Error('The PostgreSQL store is not open yet');
    return this.poolValue;
  }

  private async openNow(): Promise<void> {
    const url = typeof this.options.url === 'string' ? this.options.url : await this.options.url();
    this.descriptionValue = { kind: 'postgres', location: describeUrl(url) };
    // Pipelined connections (node-postgres 8.23's `pipeline`): a query is written at once, without
    // waiting for the answers of those before it. A transaction's BEGIN goes out with its first
    // statement, one round trip instead of two (see begin()).
    const config: pg.PoolConfig & { pipeline: boolean } = { connectionString: url, max: this.options.poolSize ?? 10, connectionTimeoutMillis: 5000, pipeline: true };
    const pool = new pg.Pool(config);
    // An idle pooled connection the server drops (a restart) must not crash the daemon: the pool
    // discards it and the next call connects again.
    pool.on('error', () => undefined);
    // A connection lost while checked out (a query in flight when the server stops) fails that
    // query, which the caller turns into StoreUnavailable; the client also emits 'error', which
    // without a listener would be an uncaught exception.
    pool.on('connect', (client) => client.on('error', () => undefined));
    this.poolValue = pool;
    const started = performance.now();
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      // At start, a database that cannot be reached is no outage to wait out: the daemon stops.
      throw cannotOpen(this.description.location, error);
    }
    try {
      const versions = await migratePostgres(client, this.now());
      this.migratedValue = { versions, ms: Math.round(performance.now() - started) };
    } finally {
      client.release();
    }
    if (this.closed) return;
    this.feedValue = new ChangeFeed(url, pool, this.now, this.changes, this.instanceId, {
      poll: this.options.poll === true,
      pollMs: this.options.pollMs ?? DEFAULT_POLL_MS,
      fallbackMs: this.options.fallbackMs ?? DEFAULT_FALLBACK_MS,
    });
    this.feedValue.start();
  }

  /** Whether the last call found the database unreachable (so the next success is news). */
  private down = false;

  /** The StoreUnavailable error for `error`, telling the availability hook if this starts an outage. */
  private unavailable(error: unknown): Error {
    const refusal = storeUnavailable(this.description.location, error);
    if (!this.down) {
      this.down = true;
      this.options.availability?.(false, errorMessage(error));
    }
    return refusal;
  }

  private reachable(): void {
    if (!this.down) return;
    this.down = false;
    this.options.availability?.(true, this.description.location);
  }

  /** Connects and migrates; rejects with why the store cannot be used. */
  open(): Promise<void> {
    return this.opening;
  }

  // ------------------------------------------------------------------------------------------
  // Transactions

  /**
   * Runs `fn` in a transaction on one pooled connection; after the commit its changes go to the
   * engine. Deadlocks and serialization failures run it again; a lost server is StoreUnavailable.
   */
  private async writeTx<T>(fn: (tx: PgTx) => Promise<T>): Promise<T> {
    await this.opening;
    for (let attempt = 1; ; attempt += 1) {
      let client: pg.PoolClient;
      try {
        client = await this.pool.connect();
      } catch (error) {
        throw this.unavailable(error);
      }
      const tx = new PgTx(client, this.now);
      let broken = false;
      try {
        const [begun, work] = withBegin(client, 'BEGIN', () => fn(tx));
        const result = await work;
        await begun;
        // Other daemons hear of the changes with the commit, in the same round trip (the simple
        // query protocol runs both statements): NOTIFY is transactional, so they hear of it only
        // if it committed, and never before the rows are visible to them.
        const notice = encodeNotice(this.instanceId, tx.changes, this.now());
        await client.query(notice === null ? 'COMMIT' : `NOTIFY ${CHANNEL}, ${client.escapeLiteral(notice)}; COMMIT`);
        this.reachable();
        this.feedValue?.noteLocal(tx.changes);
        tx.changes.deliver(this.changes);
        return result;
      } catch (error) {
        if (isUnavailable(error)) {
          broken = true;
          throw this.unavailable(error);
        }
        await client.query('ROLLBACK').catch(() => {
          broken = true;
        });
        if (isRetryable(error) && attempt < MAX_TRIES) continue;
        throw error;
      } finally {
        client.release(broken);
      }
    }
  }

  /** A read-only transaction: one consistent snapshot (REPEATABLE READ) for reads that span statements. */
  private async readTx<T>(fn: (tx: PgTx) => Promise<T>): Promise<T> {
    await this.opening;
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      throw this.unavailable(error);
    }
    let broken = false;
    try {
      const tx = new PgTx(client, this.now);
      const [begun, work] = withBegin(client, 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY', () => fn(tx));
      const result = await work;
      await begun;
      await client.query('COMMIT');
      this.reachable();
      return result;
    } catch (error) {
      if (isUnavailable(error)) {
        broken = true;
        throw this.unavailable(error);
      }
      await client.query('ROLLBACK').catch(() => {
        broken = true;
      });
      throw error;
    } finally {
      client.release(broken);
    }
  }

  /** Runs a job operation (../statements/index.ts) in one write transaction, through ./runner.ts. */
  write<T>(op: (changes: ChangeSink) => Op<T>): Promise<T> {
    return this.writeTx((tx) => runAsync(tx, op(tx.changes), postgresStatements));
  }

  /** Runs a reading operation in one read-only snapshot. */
  read<T>(op: (changes: ChangeSink) => Op<T>): Promise<T> {
    return this.readTx((tx) => runAsync(tx, op(tx.changes), postgresStatements));
  }

  /**
   * The engine's clock against the server's (clock_timestamp(), not now(): the time of the
   * statement, not of its transaction), taken at the midpoint of the round trip.
   */
  async clockSkew(): Promise<number> {
    await this.opening;
    const sent = this.now();
    let server: number;
    try {
      const result = await this.pool.query('SELECT (extract(epoch from clock_timestamp()) * 1000)::float8 AS now');
      server = Number((result.rows[0] as { now: unknown } | undefined)?.now);
    } catch (error) {
      throw isUnavailable(error) ? this.unavailable(error) : error;
    }
    const received = this.now();
    return Math.round((sent + received) / 2 - server);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.opening.catch(() => undefined);
    await this.feedValue?.close();
    await this.poolValue?.end();
  }
}
