/**
 * This daemon as one of the daemons on its database: it records itself (pid, the process's start
 * time, host, socket, its executors' worker id), keeps a heartbeat, and at start-up recovers
 * what its dead predecessors' built-in executors left running, whichever socket they were on.
 *
 * Recovery keys on the database, not the socket: two daemons on one file are supported, each on
 * its own socket, so a daemon restarted on another socket must still find the shell jobs its dead
 * predecessor left "running". A predecessor is dead when it stopped cleanly, or when it ran on
 * this host and its pid is not alive, or is alive but started at another time (the pid was
 * reused). A daemon alive by those tests is never touched: its jobs are its own. Daemons on
 * another host are left alone (their pids mean nothing here): when the leader recovers the jobs
 * of one taken for dead, each interrupted run says that what it started may still run on that
 * host, and a daemon starting there again stops those processes (stopHostLeftovers).
 *
 * On a store several daemons share (PostgreSQL), recovering other daemons' jobs is maintenance:
 * only the leader does it (./leadership.ts), again and again while it leads, not once at start.
 * Daemons on other hosts, and daemons on this host whose pid cannot tell (no start time to
 * compare), are judged by their heartbeat there: silent for DAEMON_STALE_MS means dead. That
 * judgement is made only once this daemon's own heartbeats have gone through for as long: after
 * an outage of the database every daemon's heartbeat is old, and none of them is dead. A start
 * recovers only this daemon's own previous life (the socket it took shows that one is gone).
 *
 * The heartbeat also keeps the daemon's own executors seen and alive in the workers list for as
 * long as the daemon runs; at a clean stop they are shown as gone.
 */
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import { processExists } from '../../shared/client/processes';
import type { DaemonInstance } from '../engine/api';
import type { Engine } from '../engine/engine';
import { findLeftovers, findWorkerLeftovers, stopLeftovers, type Leftover } from '../executors/leftovers';
import { stopLeftoverCgroups } from '../executors/cgroups';
import type { Logger } from './logger';

/**
 * How often the daemon records that it is alive. An interrupted run is recorded as ending at its
 * daemon's last heartbeat at the latest (see recoverInterrupted), so this is also how far such
 * a run's recorded duration can overshoot; a small write every two seconds costs nothing.
 */
export const DAEMON_HEARTBEAT_MS = 2000;

/**
 * How long a daemon's heartbeat may be silent before a daemon that cannot check its pid takes it
 * for dead: five heartbeats, so that a busy event loop or a slow commit is not taken for a death.
 */
export const DAEMON_STALE_MS = 5 * DAEMON_HEARTBEAT_MS;

/**
 * When the process started, in clock ticks since boot (/proc/<pid>/stat, field 22); null where
 * /proc cannot tell (another system, or the process is gone). The command name (field 2) is in
 * parentheses and may itself hold spaces and parentheses, so the fields are counted from the last
 * closing one.
 */
export function processStartTime(pid: number): string | null {
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Field 3 (state) is the first after the name; field 22 is 19 further on.
  return fields[19] ?? null;
}

/**
 * Whether a recorded daemon is dead, from this host: stopped cleanly; or on this host with a pid
 * that is gone or belongs to a process started at another time. Otherwise, given `staleBefore`
 * (the heartbeat time before which a daemon is dead), a daemon on another host or one whose pid
 * cannot be checked is dead when its last heartbeat is older; without it, such a daemon is
 * left alone.
 */
export function daemonDead(daemon: Pick<DaemonInstance, 'host' | 'pid' | 'processStart' | 'stoppedAt' | 'heartbeatAt'>, host: string, staleBefore: number | null): boolean {
  if (daemon.stoppedAt !== null) return true;
  if (daemon.host === host) {
    if (!processExists(daemon.pid)) return true;
    const now = daemon.processStart === null ? null : processStartTime(daemon.pid);
    // The same process, for certain: alive, however long its heartbeat has been silent.
    if (now !== null) return now !== daemon.processStart;
  }
  return staleBefore !== null && daemon.heartbeatAt < staleBefore;
}

/** What start-up recovery did. */
export interface Recovery {
  /** Jobs put back to run again. */
  recovered: number;
  /** Dead daemons whose jobs were recovered (and whose records were then dropped). */
  predecessors: number;
  /** Pids of processes their shell jobs had left running, stopped first. */
  stoppedPids: number[];
}

export class DaemonInstanceRecord {
  readonly id = randomUUID();
  private readonly host = os.hostname();
  private timer: NodeJS.Timeout | null = null;
  private registered = false;
  private stopping = false;
  /** Since when this daemon's heartbeats have gone through without a failure (epoch ms); null after a failed one. */
  private healthySince: number | null = null;
  /** A recovery pass is running: the leader's next one waits for the next turn. */
  private recovering = false;

  constructor(
    private readonly engine: Engine,
    private readonly socketPath: string,
    /** The worker id this daemon's built-in executors claim under. */
    private readonly executorId: string,
    private readonly logger: Logger,
    /**
     * The store is shared by several daemons, one of which leads maintenance (PostgreSQL): a
     * start recovers only this daemon's own previous life, and daemons are judged by heartbeat.
     */
    private readonly shared = false,
  ) {}

  /**
   * Records this daemon, then recovers what dead predecessors left running: their executors'
   * jobs (and, as before daemons were recorded, anything still running under this socket's
   * executor id, whose daemon the socket check has shown dead) go back to run again, after the
   * processes their shell jobs left are stopped, so that a job never runs twice at once. On a
   * store several daemons share, only this daemon's own previous life: the rest is the leader's
   * (recoverDead).
   */
  async start(killGraceMs: number): Promise<Recovery> {
    await this.register();
    const recovery = await this.recover(killGraceMs, !this.shared);
    await this.stopHostLeftovers(killGraceMs);
    return recovery;
  }

  /**
   * At start: the processes that shell jobs of daemons once on this host still run, although
   * those jobs were recovered meanwhile (by the daemon leading maintenance on another host, which
   * could not stop them from there, and said so in each interrupted run). They are found by the
   * dead executors' worker id in their environment (SPOOL_WORKER_ID): this daemon's own from
   * its previous life, and every built-in executor recorded on this host whose daemon is not
   * alive. Only jobs of this store are touched; a job's cgroup only while no live daemon runs it.
   */
  private async stopHostLeftovers(killGraceMs: number): Promise<void> {
    const recorded = (await this.engine.listDaemons()).filter((d) => d.id !== this.id);
    const live = new Set(recorded.filter((d) => !daemonDead(d, this.host, null)).map((d) => d.executorId));
    const workers = await this.engine.listWorkers();
    const gone = new Set([this.executorId]);
    for (const w of workers) {
      if (w.type === 'builtin' && w.host === this.host && !live.has(w.id) && (w.pid === null || !processExists(w.pid))) gone.add(w.id);
    }
    const found = findWorkerLeftovers(gone);
    if (found.length === 0) return;
    const leftovers: Leftover[] = [];
    const idle = new Set<string>();
    for (const id of new Set(found.map((l) => l.jobId))) {
      const job = await this.engine.getJob(id).then((r) => r.job, () => undefined);
      // Another store's job (another daemon on this host): not this daemon's to stop.
      if (job === undefined) continue;
      leftovers.push(...found.filter((l) => l.jobId === id));
      if (job.state !== 'running' || job.workerId === null || gone.has(job.workerId)) idle.add(id);
    }
    if (leftovers.length === 0) return;
    const stoppedPids = await stopLeftovers(leftovers, killGraceMs);
    await stopLeftoverCgroups(idle);
    this.logger.info('Stopped processes that shell jobs of a daemon on this host had left running; their jobs had been recovered by another daemon meanwhile', {
      jobs: [...new Set(leftovers.map((l) => l.jobId))],
      pids: leftovers.map((l) => l.pid),
      ...(stoppedPids.length > 0 ? { killedAfterGrace: stoppedPids } : {}),
    });
  }

  /**
   * The leader's recovery pass: the jobs of daemons dead by daemonDead go back to run again, and
   * their records go. Resolves with nothing done while another pass runs.
   */
  async recoverDead(killGraceMs: number): Promise<Recovery> {
    if (this.recovering || this.stopping) return { recovered: 0, predecessors: 0, stoppedPids: [] };
    this.recovering = true;
    try {
      const recovery = await this.recover(killGraceMs, true);
      if (recovery.recovered > 0) this.logger.info('Recovered jobs that dead daemons left running; they run again', { count: recovery.recovered });
      return recovery;
    } finally {
      this.recovering = false;
    }
  }

  private async register(): Promise<void> {
    await this.engine.registerDaemon({ id: this.id, host: this.host, pid: process.pid, processStart: processStartTime(process.pid), socketPath: this.socketPath, executorId: this.executorId });
    this.registered = true;
    this.healthySince = Date.now();
  }

  /**
   * The heartbeat time before which a daemon that cannot be checked by its pid is dead; null
   * while this daemon's own heartbeats have not gone through for DAEMON_STALE_MS (just started,
   * or just back from an outage of the database, when every daemon's heartbeat is old). Only on
   * a store several daemons share: on SQLite such daemons are left alone, as they always were.
   */
  private staleBefore(): number | null {
    if (!this.shared || this.healthySince === null) return null;
    const now = Date.now();
    return now - this.healthySince >= DAEMON_STALE_MS ? now - DAEMON_STALE_MS : null;
  }

  private async recover(killGraceMs: number, others: boolean): Promise<Recovery> {
    const staleBefore = this.staleBefore();
    const recorded = (await this.engine.listDaemons()).filter((d) => d.id !== this.id);
    const dead = others ? recorded.filter((d) => daemonDead(d, this.host, staleBefore)) : [];
    const alive = new Set(recorded.filter((d) => !dead.includes(d)).map((d) => d.executorId));
    // Executor ids to recover, each with the latest moment its daemon was known alive.
    const groups = new Map<string, number | undefined>();
    const note = (executorId: string, aliveUntil: number | undefined): void => {
      // Its own executor id is recovered only at start (a dead predecessor on this socket had it
      // too); once this daemon runs, what runs under it is its own.
      if (executorId === this.executorId ? this.heartbeatStarted : alive.has(executorId)) return;
      const known = groups.get(executorId);
      groups.set(executorId, known === undefined ? aliveUntil : aliveUntil === undefined ? known : Math.max(known, aliveUntil));
    };
    const workers = await this.engine.listWorkers();
    // Its own executor id: only at start, when whatever runs under it was left by its previous life.
    if (!this.heartbeatStarted) note(this.executorId, workers.find((w) => w.id === this.executorId)?.lastHeartbeatAt);
    for (const d of dead) note(d.executorId, d.heartbeatAt);
    // Executors of daemons from before daemons were recorded: on this host, with a dead pid.
    const recordedExecutors = new Set(recorded.map((d) => d.executorId));
    const unrecorded = others ? workers.filter((w) => w.type === 'builtin' && w.host === this.host && w.id !== this.executorId && !recordedExecutors.has(w.id) && w.pid !== null && !processExists(w.pid)) : [];
    for (const w of unrecorded) note(w.id, w.lastHeartbeatAt);

    const ids = [...groups.keys()];
    if (ids.length === 0 && dead.length === 0 && unrecorded.length === 0) return { recovered: 0, predecessors: 0, stoppedPids: [] };
    const running = new Set(await this.engine.runningJobIds(ids));
    // Only processes on this host can be found and stopped; a daemon dead on another host is
    // judged by its heartbeat, and what it left there ended with it or is stopped when a daemon
    // starts there again.
    // A cgroup a killed daemon's job ran in holds every process it started (cgroups.ts); the
    // /proc scan then finds those of jobs that ran without one.
    const heldCgroups = await stopLeftoverCgroups(running);
    if (heldCgroups.length > 0) this.logger.info("Stopped what shell jobs of a daemon killed earlier had left running in their cgroups", { jobs: heldCgroups.length });
    const leftovers = findLeftovers(running);
    const stoppedPids = leftovers.length > 0 ? await stopLeftovers(leftovers, killGraceMs) : [];
    if (leftovers.length > 0) {
      this.logger.info('Stopped processes that shell jobs of a daemon killed earlier had left running', {
        jobs: new Set(leftovers.map((l) => l.jobId)).size,
        pids: leftovers.map((l) => l.pid),
        ...(stoppedPids.length > 0 ? { killedAfterGrace: stoppedPids } : {}),
      });
    }
    let recovered = 0;
    // A daemon dead on another host: its runs say where what they started may still run.
    const far = new Map(dead.filter((d) => d.host !== this.host).map((d) => [d.executorId, { host: d.host, pid: d.pid }] as const));
    for (const [executorId, aliveUntil] of groups) recovered += await this.engine.recoverInterrupted([executorId], aliveUntil, far.get(executorId));
    for (const d of dead) await this.engine.forgetDaemon(d.id, d.pid);
    for (const w of unrecorded) await this.engine.markWorkerGone(w.id);
    if (dead.length > 0) {
      this.logger.info('Recovered what daemons that stopped or died on this database left', {
        daemons: dead.map((d) => ({ host: d.host, pid: d.pid, socket: d.socketPath, ...(d.stoppedAt === null ? { lastHeartbeat: new Date(d.heartbeatAt).toISOString() } : {}) })),
      });
    }
    return { recovered, predecessors: dead.length, stoppedPids };
  }

  private heartbeatStarted = false;

  /** Beats every DAEMON_HEARTBEAT_MS until stopped. */
  startHeartbeat(): void {
    this.heartbeatStarted = true;
    this.timer = setInterval(() => void this.beat(), DAEMON_HEARTBEAT_MS);
    this.timer.unref();
  }

  private async beat(): Promise<void> {
    try {
      const recorded = await this.engine.daemonHeartbeat(this.id, process.pid);
      if (this.stopping) return;
      if (!recorded) {
        // Taken for dead (its heartbeats did not reach the database for a while) and recovered
        // by the leader: what ran here was handed out again, and its lease-guarded reports are
        // refused. Record the daemon again, so that it is not taken for dead once more.
        this.logger.warn('This daemon had been taken for dead by the daemon that leads maintenance (its heartbeats had not reached the database); recorded again');
        await this.register();
        return;
      }
      this.healthySince ??= Date.now();
    } catch (error) {
      this.healthySince = null;
      this.logger.warn('Could not record the daemon as alive', { error });
    }
  }

  /** A clean stop: no more heartbeats, and the daemon and its executors are recorded as stopped. Before the engine closes. */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    if (!this.registered) return;
    try {
      await this.engine.daemonStopped(this.id, process.pid);
    } catch (error) {
      this.logger.warn('Could not record the daemon as stopped', { error });
    }
  }
}
