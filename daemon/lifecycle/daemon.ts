/**
 * One running daemon: the engine, the socket server and the parts that act on time and events
 * (long-poll claims, executors, scheduler, upkeep), wired together. `Daemon.start` brings them
 * up in order; `shutdown` takes them down gracefully: stop handing out work, give running
 * built-in jobs the grace period, stop the rest (they stay recoverable), close the socket and
 * the database.
 */
import * as fs from 'node:fs';
import type * as net from 'node:net';
import * as path from 'node:path';
import { SpoolError, isSpoolError, errorMessage } from '../../shared/protocol/errors';
import { defaultLogPath, defaultTlsFolder } from '../../shared/client/paths';
import { ErrorCode, PROTOCOL_VERSION, type BackupResult, type DaemonStatus } from '../../shared/protocol';
import type { Job, JobCounts } from '../../shared/protocol/types';
import { VERSION } from '../../shared/protocol/version';
import type { DaemonOptions } from '../config';
import type { EngineClaimParams, JobChange } from '../engine/api';
import type { Engine } from '../engine/engine';
import { BUILTIN_KINDS, openEngine } from '../engine/index';
import { SqliteStore, sqliteStore } from '../storage/sqlite';
import { tighten } from '../storage/sqlite/permissions';
import { checkOwnFile } from '../../shared/client/fileTrust';
import { postgresStore } from '../storage/postgres';
import { metricsAddress, type MetricsAddress } from '../metrics/address';
import { DaemonMetrics } from '../metrics/metrics';
import { MetricsServer } from '../metrics/server';
import { readMetricsToken } from '../metrics/token';
import { ExecutorPool, builtinWorkerId } from '../executors/pool';
import { containment, containmentWords } from '../executors/cgroups';
import { ClaimWaiters } from '../rpc/claims';
import type { RpcConnection } from '../rpc/connection';
import { Dispatcher } from '../rpc/dispatch';
import { EventHub } from '../rpc/events';
import { WriteGroup } from '../rpc/groupCommit';
import { GROUPED_METHODS, methodTable, type Services } from '../rpc/handlers/index';
import { RpcServer } from '../rpc/server';
import { SessionCheck } from '../rpc/sessionCheck';
import { loadTlsIdentity, parseListen } from '../rpc/tls';
import { Scheduler } from '../scheduler/scheduler';
import { Upkeep } from '../scheduler/upkeep';
import type { Logger } from './logger';
import { ClockWatch } from './clock';
import { DaemonInstanceRecord } from './instance';
import { Leadership } from './leadership';
import { ScheduledBackups } from './scheduledBackups';
import { claimSocketPath, prepareSocketFolder } from './socketGuard';

/**
 * The log file beside the database if the process's standard error is that very file (same
 * device and inode), else null: a daemon in the foreground logs to its terminal or to wherever
 * its caller sent it, and a log file an earlier detached daemon left there is not its own.
 */
function stderrLogFile(dbPath: string): string | null {
  const log = defaultLogPath(dbPath);
  try {
    const stderr = fs.fstatSync(2);
    const file = fs.statSync(log);
    return stderr.dev === file.dev && stderr.ino === file.ino ? log : null;
  } catch {
    return null;
  }
}

/**
 * The leader looks for dead daemons' jobs every this many renewals of its lease (every 3 s): a
 * daemon counts as dead by its heartbeat only after 10 s of silence, so looking more often would
 * only read the daemons table more often.
 */
const RECOVER_EVERY_RENEWALS = 2;

/** Any RPC from a worker marks it alive, but at most this often per worker (it is a write). */
const TOUCH_INTERVAL_MS = 1000;

/** How often the queue history's counts are written: what a daemon that dies can lose at most. */
export const HISTORY_FLUSH_MS = 5_000;

export class Daemon {
  readonly startedAt = Date.now();
  /** Where its standard error goes, if that is its log file (checked once: it never changes). */
  private readonly logPath: string | null;
  private shuttingDown = false;
  private shutdownPromise: Promise<void> | null = null;
  private readonly lastTouch = new Map<string, number>();
  /** The job counts `status` last read, shown while the store is unavailable. */
  private lastCounts: JobCounts = { blocked: 0, queued: 0, running: 0, retrying: 0, held: 0, completed: 0, dead: 0, cancelled: 0 };
  private readonly events: EventHub;
  private readonly claims: ClaimWaiters;
  private readonly writes: WriteGroup;
  private readonly pool: ExecutorPool;
  private readonly upkeep: Upkeep;
  /** Whether this daemon runs the store's maintenance (one daemon at a time on a shared store). */
  private readonly leadership: Leadership;
  private renewals = 0;
  private readonly server: RpcServer;
  /** The clock against the database server's (PostgreSQL). */
  private readonly clock: ClockWatch;
  /** Over TLS: logged-in sessions checked against the stored tokens every second. */
  private readonly sessions: SessionCheck;
  /** Set when listening on TCP (`--listen`): the bound address and the certificate's fingerprint. */
  private tls: { listen: string; fingerprint: string } | null = null;
  private readonly backups: ScheduledBackups | null;
  private unsubscribe: () => void = () => undefined;
  /** The Prometheus endpoint (`--metrics`), once listening. */
  private metricsServer: MetricsServer | null = null;
  private resolveStopped: () => void = () => undefined;
  /** Writes the queue history's counts; null with --no-history. */
  private readonly historyTimer: NodeJS.Timeout | null;
  /** Settles when the daemon has shut down completely. */
  readonly stopped = new Promise<void>((resolve) => (this.resolveStopped = resolve));

  private constructor(
    readonly options: DaemonOptions,
    private readonly engine: Engine,
    private readonly logger: Logger,
    /** This daemon's record on the database: its heartbeat, and its clean stop. */
    private readonly instance: DaemonInstanceRecord,
    private readonly metrics: { figures: DaemonMetrics; address: MetricsAddress; token: string | null } | null,
    private readonly sqlite: SqliteStore | null = null,
  ) {
    this.logPath = stderrLogFile(options.dbPath);
    this.events = new EventHub(() => engine.stats(), logger, (id) => engine.workflowRun(id));
    this.claims = new ClaimWaiters((params) => this.claim(params), logger, (jobs, params) => this.giveBack(jobs, params.workerId));
    // On SQLite (each call's work done inside the call) an enqueue's waiting claims take their
    // jobs inside the enqueue's transaction: one commit from producer to worker instead of two.
    this.writes = new WriteGroup(engine, options.groupCommit, engine.store.kind === 'sqlite' ? (queues) => this.claims.claimWithin(queues) : null);
    this.pool = new ExecutorPool(
      engine,
      options.socketPath,
      options.maxExecutors,
      options.killGraceMs,
      logger,
      (at) => this.upkeep.noteDue(at),
      (params) => this.claim(params),
    );
    const scheduler = new Scheduler(engine, options.scheduleGraceMs, logger, Date.now, (name) => this.events.scheduleChanged(name, false, Date.now()));
    const shared = engine.store.kind !== 'sqlite';
    // On SQLite every daemon maintains its own file as before, with no duties on a timer: an idle daemon stays idle.
    this.leadership = new Leadership(engine, instance.id, logger, shared, undefined, !shared ? null : {
      gained: () => {
        // Catch up with what the previous leader may have left: expired leases and dead daemons.
        this.upkeep.noteDue(Date.now());
        void this.recoverDead();
      },
      held: () => {
        // Leases that workers on other daemons took expire here too, and this daemon's timer has
        // not heard of them: read the next due time again.
        this.upkeep.refresh();
        this.renewals += 1;
        if (this.renewals % RECOVER_EVERY_RENEWALS === 0) void this.recoverDead();
      },
    });
    this.upkeep = new Upkeep(engine, scheduler, () => this.wakeAll(), logger, Date.now, () => this.leadership.isLeader);
    // The queue history's counts are written every few seconds, in one statement (docs/history.md).
    this.historyTimer = options.history ? setInterval(() => void this.flushHistory(), HISTORY_FLUSH_MS) : null;
    this.historyTimer?.unref();
    const dispatcher = new Dispatcher(methodTable(this.services()), logger, (method) => {
      // Keep requests in order: writes waiting for their group commit are committed before any
      // method that is not itself grouped runs.
      if (!GROUPED_METHODS.has(method)) this.writes.flush();
    });
    this.server = new RpcServer(options.socketPath, dispatcher, logger);
    this.sessions = new SessionCheck(this.server, () => engine.listTokens(), logger);
    this.clock = new ClockWatch(engine, logger);
    this.backups = options.backups === null ? null : new ScheduledBackups(options.backups, (target) => this.backup(target), logger);
    this.server.onConnection((connection) => connection.onClose(() => this.connectionClosed(connection)));
    this.metrics?.figures.setSources({
      stats: () => engine.stats(),
      clients: () => this.server.connections.size,
      workers: () => {
        const ids = new Set<string>();
        for (const c of this.server.connections) for (const id of c.workerIds) if (id !== this.pool.workerId) ids.add(id);
        return ids.size;
      },
    });
  }

  /** Brings a daemon up; fails (having cleaned up) if the socket is taken or the database cannot open. */
  static async start(options: DaemonOptions, logger: Logger): Promise<Daemon> {
    // Checked before anything is opened: a refused address leaves nothing to clean up.
    const metrics =
      options.metrics === null
        ? null
        : {
            figures: new DaemonMetrics(options.name),
            address: metricsAddress(options.metrics, options.metricsAllowRemote),
            token: options.metricsToken === null ? null : readMetricsToken(options.metricsToken),
          };
    if (metrics === null && options.metricsToken !== null) throw new Error('--metrics-token goes with --metrics HOST:PORT: there is no metrics endpoint to protect without it.');
    const tightened = prepareSocketFolder(options.socketPath);
    if (tightened !== null) logger.warn(tightened);
    await claimSocketPath(options.socketPath);
    // A log another user created beside the database is refused, not tightened or written to.
    checkOwnFile(defaultLogPath(options.dbPath), 'the daemon log', 'Another user could read what the daemon logs there. Keep the database in a folder only you can write.', 'log');
    const logTightened = tighten(defaultLogPath(options.dbPath), 0o600);
    if (logTightened !== null) logger.warn('Made the daemon log owner-only; it was readable by other users', { changed: [logTightened] });
    // The SQLite store, kept for what only it can do (an online backup).
    let sqlite: SqliteStore | null = null;
    const factory =
      options.store !== null
        ? postgresStore({
            url: options.store,
            poll: options.storePoll,
            availability: (up, detail) =>
              up
                ? logger.info('The store is reachable again', { store: detail })
                : logger.error('The store is unavailable: requests are refused with StoreUnavailable until PostgreSQL answers again; the daemon reconnects by itself', { error: detail }),
          })
        : sqliteStore({
            dbPath: options.dbPath,
            durable: options.durable,
            // Checkpoints on a worker thread: a commit that ran one took ~9 ms of the event loop.
            walCheckpoints: 'background',
            walCheckpointFailed: (error) => logger.error('The background WAL checkpointer failed; commits checkpoint the WAL themselves again', { error }),
            permissionsTightened: (changes) => logger.warn('Made the database owner-only; it was readable by other users', { changed: changes }),
          });
    const opened = openEngine({
      history: options.history ? { minuteDays: options.historyMinuteDays, hourDays: options.historyHourDays } : false,
      store: (changes, now) => {
        const store = factory(changes, now);
        if (store instanceof SqliteStore) sqlite = store;
        return store;
      },
    });
    try {
      // PostgreSQL connects and migrates here (SQLite did in the factory): a database that cannot
      // be reached stops the start, before the socket exists, with the store's own words.
      await opened.open();
    } catch (error) {
      await opened.close().catch(() => undefined);
      throw error;
    }
    const engine = metrics === null ? opened : metrics.figures.watchStore(opened);
    // A new file gets every migration; an existing one only those a newer Spool added, which on
    // a large database can take a while (an index rebuilt): say so.
    const { versions, ms } = engine.migrated;
    if (versions.length > 0 && !versions.includes(1)) logger.info('Upgraded the database schema', { versions, ms });
    let daemon: Daemon | null = null;
    const instance = new DaemonInstanceRecord(engine, options.socketPath, builtinWorkerId(options.socketPath), logger, engine.store.kind !== 'sqlite');
    try {
      // Predecessors on this database (on any socket) that stopped or died: the processes their
      // shell jobs left are stopped, then those jobs run again (daemon/lifecycle/instance.ts).
      const { recovered } = await instance.start(options.killGraceMs);
      if (recovered > 0) logger.info('Recovered jobs a previous daemon left running; they run again', { count: recovered });
      const started = new Daemon(options, engine, logger, instance, metrics, sqlite);
      daemon = started;
      await started.listen();
      started.unsubscribe = engine.subscribe({
        jobChanged: (change, job, origin) => {
          started.jobChanged(change);
          metrics?.figures.jobChanged(change, job, origin);
        },
        queueChanged: (name, deleted) => started.queueChanged(name, deleted),
        // Revoked here or by another daemon of the store: its sessions here close now.
        tokenRevoked: (name) => started.server.closeLoginsOf(name),
        output: (jobId, queue, lines) => started.events.output(jobId, queue, lines),
        wake: (queue, dueAt, kinds) => started.wake(queue, dueAt, kinds),
        // Jobs other daemons change are read back only for this daemon's subscribers.
        wantsRemoteJobs: () => started.events.wantsJobs(),
        // Output lines other daemons store are read back only for a job someone here follows.
        wantsRemoteOutput: (jobId, queue) => started.events.wantsOutput(jobId, queue),
      });
      started.pool.start();
      if (started.tls !== null) started.sessions.start();
      await started.clock.start();
      started.instance.startHeartbeat();
      await started.leadership.start();
      started.upkeep.start();
      started.backups?.start();
      logger.info('Spool daemon ready', {
        version: VERSION,
        pid: process.pid,
        socket: options.socketPath,
        ...(options.store === null ? { db: options.dbPath, durable: options.durable } : { store: engine.store.location, poll: options.storePoll }),
        executors: options.maxExecutors,
        containment: containmentWords(containment()),
        ...(started.metricsServer ? { metrics: metricsUrl(started.metricsServer.address), name: options.name } : {}),
      });
      return started;
    } catch (error) {
      // A start that fails after the socket was created leaves no socket behind: the next start
      // (or a client) would find a path nobody answers at.
      if (daemon?.listening) await daemon.abandonListener();
      await instance.stop();
      await engine.close();
      throw error;
    }
  }

  async status(): Promise<DaemonStatus> {
    // A daemon whose database is away still says who it is (and can be stopped: `spool daemon
    // stop` asks for the status first), with the counts it last read and why the store is away.
    let totals = this.lastCounts;
    let storeUnavailable: string | undefined;
    let allPaused = false;
    try {
      const stats = await this.engine.stats();
      totals = stats.totals;
      allPaused = stats.allPaused === true;
      this.lastCounts = totals;
    } catch (error) {
      if (!(isSpoolError(error) && error.code === ErrorCode.StoreUnavailable)) throw error;
      storeUnavailable = error.message;
    }
    return {
      version: VERSION,
      protocolVersion: PROTOCOL_VERSION,
      pid: process.pid,
      uptimeMs: Date.now() - this.startedAt,
      startedAt: this.startedAt,
      socketPath: this.options.socketPath,
      // The wire keeps its name for the store's location: clients show it as the database.
      dbPath: this.engine.store.location,
      store: { kind: this.engine.store.kind, location: this.engine.store.location },
      logPath: this.logPath,
      counts: totals,
      ...(storeUnavailable === undefined ? {} : { storeUnavailable }),
      executors: { running: this.pool.running, cap: this.pool.cap },
      ...(this.tls ? { listen: this.tls.listen, tlsFingerprint: this.tls.fingerprint } : {}),
      ...(this.clock.skewMs === null ? {} : { clockSkewMs: this.clock.skewMs }),
      containment: containment(),
      ...(this.metricsServer ? { metrics: metricsUrl(this.metricsServer.address) } : {}),
      ...(allPaused ? { allPaused } : {}),
    };
  }

  /** daemon.backup: a copy of the SQLite file; another store has its own tools. */
  async backup(target: string): Promise<BackupResult> {
    if (this.sqlite === null) {
      throw new SpoolError(
        ErrorCode.InvalidParams,
        `Online backup is for the SQLite store; this daemon keeps its queue in PostgreSQL (${this.engine.store.location}). Back that database up with PostgreSQL's own tools: pg_dump (pg_dump -Fc -f spool.dump DATABASE) or the server's base backups.`,
      );
    }
    const result = await this.sqlite.backup(target);
    this.logger.info('Wrote a backup', { path: result.path, bytes: result.bytes, ms: result.ms });
    return result;
  }

  /** The leader's pass over dead daemons' jobs (daemon/lifecycle/instance.ts); a failure is logged and the next pass tries again. */
  private async recoverDead(): Promise<void> {
    if (this.shuttingDown) return;
    try {
      await this.instance.recoverDead(this.options.killGraceMs);
    } catch (error) {
      this.logger.warn('Could not recover what dead daemons left running; the next pass tries again', { error });
    }
  }

  /** Graceful shutdown; calling it again returns the same promise. */
  shutdown(reason: string): Promise<void> {
    if (!this.shutdownPromise) this.shutdownPromise = this.doShutdown(reason);
    return this.shutdownPromise;
  }

  /** Writes what the queue history counted; a failure is logged, and the counts are written with the next try. */
  private async flushHistory(): Promise<void> {
    try {
      await this.engine.flushHistory();
    } catch (error) {
      this.logger.warn('Could not write the queue history; it is written again in a few seconds', { error: error instanceof Error ? error.message : String(error) });
    }
  }

  private async doShutdown(reason: string): Promise<void> {
    this.shuttingDown = true;
    this.logger.info('Shutting down', { reason, graceMs: this.options.graceMs });
    this.claims.releaseAll();
    this.upkeep.stop();
    this.sessions.stop();
    this.clock.stop();
    await this.backups?.stop();
    try {
      await this.pool.shutdown(this.options.graceMs);
      this.writes.flush();
      // Its executors show as gone from here on, and a successor on any socket knows it stopped.
      await this.instance.stop();
      // Handed over at once rather than left to run out: another daemon maintains from its next try.
      await this.leadership.stop();
      await this.server.close();
      await this.metricsServer?.close();
      this.events.close();
      this.unsubscribe();
      if (this.historyTimer !== null) clearInterval(this.historyTimer);
      await this.flushHistory();
      await this.engine.close();
      removeSocketFile(this.options.socketPath, this.logger);
      this.logger.info('Spool daemon stopped');
    } finally {
      this.resolveStopped();
    }
  }

  /** Whether the socket file was created (listen succeeded). */
  private listening = false;

  /** Start-up failed after listen: stop listening and remove the socket file. */
  private async abandonListener(): Promise<void> {
    this.unsubscribe();
    this.sessions.stop();
    this.clock.stop();
    this.upkeep.stop();
    await this.leadership.stop();
    await this.backups?.stop();
    await this.server.close();
    removeSocketFile(this.options.socketPath, this.logger);
  }

  private async listen(): Promise<void> {
    // The metrics endpoint first: if its port is taken, the daemon fails before it took the socket.
    if (this.metrics) this.metricsServer = await MetricsServer.listen(this.metrics.address, this.metrics.figures, this.logger, this.metrics.token);
    // The certificate first: a daemon that cannot serve TLS as asked does not start at all.
    const tcp = this.options.listen === null ? null : parseListen(this.options.listen);
    const identity =
      tcp === null
        ? null
        : loadTlsIdentity({
            tlsFolder: defaultTlsFolder(path.resolve(this.options.dbPath)),
            host: tcp.host,
            ...(this.options.tlsCert === null ? {} : { certPath: this.options.tlsCert }),
            ...(this.options.tlsKey === null ? {} : { keyPath: this.options.tlsKey }),
          });
    try {
      await this.server.listen();
      this.listening = true;
    } catch (error) {
      await this.metricsServer?.close();
      // Two daemons started at the same instant both found the path free; the loser says who won.
      if (error instanceof Error && 'code' in error && error.code === 'EADDRINUSE') await claimSocketPath(this.options.socketPath);
      throw error;
    }
    if (tcp !== null && identity !== null) {
      let bound: net.AddressInfo;
      try {
        bound = await this.server.listenTls(tcp.host, tcp.port, identity);
      } catch (error) {
        await this.server.close();
        removeSocketFile(this.options.socketPath, this.logger);
        throw new Error(`--listen ${this.options.listen}: ${errorMessage(error)}`);
      }
      const listen = `${bound.family === 'IPv6' ? `[${bound.address}]` : bound.address}:${bound.port}`;
      this.tls = { listen, fingerprint: identity.fingerprint };
      this.logger.info('Listening on TCP over TLS', { listen, cert: identity.certPath, tlsFingerprint: identity.fingerprint });
    }
  }

  private services(): Services {
    // Getters, not copies: handlers see the daemon's live state.
    const daemon = this;
    return {
      engine: this.engine,
      writes: this.writes,
      claims: this.claims,
      events: this.events,
      pool: this.pool,
      upkeep: this.upkeep,
      status: () => this.status(),
      backup: (target) => this.backup(target),
      requestShutdown: (reason) => {
        // After the response to daemon.shutdown has been written.
        setImmediate(() => void this.shutdown(reason));
      },
      get shuttingDown() {
        return daemon.shuttingDown;
      },
      workerSeen: (workerId, connection) => this.workerSeen(workerId, connection),
      claimed: (jobs) => this.claimed(jobs),
      claim: (params) => this.claim(params),
      logger: this.logger,
      get logins() {
        return daemon.server.logins;
      },
    };
  }

  private jobChanged(change: JobChange): void {
    const now = Date.now();
    this.events.jobChanged(change);
    if (change.state === 'queued' || change.state === 'retrying') {
      if (change.runAt > now) this.upkeep.noteDue(change.runAt);
      else this.claims.wake(change.queue);
    } else if (change.state !== 'running') {
      // A job that ended may have freed one of its queue's concurrency slots.
      this.claims.wake(change.queue);
    }
    this.pool.jobChanged(change);
  }

  private queueChanged(name: string, deleted: boolean): void {
    this.events.queueChanged(name, deleted, Date.now());
    // Resumed or reconfigured (a higher concurrency, a new rate): waiting work may now run.
    this.claims.wake(name);
    this.pool.wake();
    // A resumed queue's delayed jobs count again for the next due time.
    this.upkeep.refreshSoon();
  }

  /** Another daemon on the store made jobs of `queue` (every queue when null) claimable from `dueAt`. */
  private wake(queue: string | null, dueAt?: number, kinds?: readonly string[]): void {
    if (dueAt !== undefined && dueAt > Date.now()) {
      this.upkeep.noteDue(dueAt);
      return;
    }
    if (queue === null) this.claims.wakeAll();
    else this.claims.wake(queue);
    // As for this daemon's own changes (ExecutorPool.jobChanged): the executors look for work only
    // when built-in jobs changed. A claim for them in a queue full of other kinds reads the backlog.
    if (kinds === undefined || kinds.some((kind) => BUILTIN_KINDS.includes(kind))) this.pool.wake();
  }

  private wakeAll(): void {
    this.claims.wakeAll();
    this.pool.wake();
  }

  /**
   * Every claim the daemon makes for anyone goes through here. A claim that comes back short may
   * have been held back by a rate limit: the timer then learns when the next token comes.
   */
  private async claim(params: EngineClaimParams): Promise<Job[]> {
    const jobs = await this.engine.claim(params);
    if (jobs.length < (params.max ?? 1)) this.upkeep.refreshSoon();
    return jobs;
  }

  /**
   * Jobs a claim took for a worker that can no longer be answered (it hung up while the claim
   * was in flight) go back to their queue at once, the attempt given back, rather than staying
   * running for nobody until their lease runs out. Nobody received them, so none runs twice.
   */
  private async giveBack(jobs: Job[], workerId: string): Promise<void> {
    for (const job of jobs) {
      await this.engine.release({ id: job.id, workerId, reason: 'its worker hung up before the claim was answered' });
    }
  }

  private claimed(jobs: Job[]): void {
    let earliest = Infinity;
    for (const job of jobs) if (job.leaseExpiresAt !== null && job.leaseExpiresAt < earliest) earliest = job.leaseExpiresAt;
    if (earliest !== Infinity) this.upkeep.noteDue(earliest);
  }

  private workerSeen(workerId: string, connection: RpcConnection): void {
    if (!connection.workerIds.has(workerId)) connection.workerIds.add(workerId);
    const now = Date.now();
    if (now - (this.lastTouch.get(workerId) ?? 0) < TOUCH_INTERVAL_MS) return;
    this.lastTouch.set(workerId, now);
    // Not awaited: the touch is started now (inside the caller's group commit, if any) and only
    // its failure matters, which is logged.
    this.engine.touchWorker(workerId).catch((error: unknown) => this.logger.debug('Could not record a worker as alive', { workerId, error }));
  }

  /**
   * The worker is shown as gone; its leases are left to run out (then the reaper hands its jobs
   * to others), not cut short: a worker may speak over short-lived connections, one per request
   * (the socat example does), so a closed connection does not mean the worker stopped working.
   */
  private connectionClosed(connection: RpcConnection): void {
    for (const workerId of connection.workerIds) {
      // The daemon's own executors are alive as long as the daemon is, whoever used their id
      // (a shell job reporting progress under it, say): their row is kept by the heartbeat.
      if (workerId === this.pool.workerId) continue;
      // The same worker may speak over several connections; it is gone when the last one closes.
      const elsewhere = [...this.server.connections].some((c) => c !== connection && !c.isClosed && c.workerIds.has(workerId));
      if (elsewhere) continue;
      this.lastTouch.delete(workerId);
      this.engine.markWorkerGone(workerId).catch((error: unknown) => {
        // A worker that claimed and completed without ever registering has no row to mark.
        if (isSpoolError(error) && error.code === ErrorCode.WorkerNotFound) return;
        this.logger.warn('Could not mark a disconnected worker as gone', { workerId, error });
      });
    }
  }
}

function metricsUrl(address: MetricsAddress): string {
  return `http://${hostPort(address)}/metrics`;
}

function hostPort(address: MetricsAddress): string {
  return address.host.includes(':') ? `[${address.host}]:${address.port}` : `${address.host}:${address.port}`;
}

function removeSocketFile(socketPath: string, logger: Logger): void {
  try {
    fs.rmSync(socketPath, { force: true });
  } catch (error) {
    logger.warn('Could not remove the socket file', { socket: socketPath, error });
  }
}
