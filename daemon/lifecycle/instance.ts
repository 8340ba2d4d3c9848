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
 * another host are left alone (their pids mean nothing here).
 *
 * The heartbeat also keeps the daemon's own executors seen and alive in the workers list for as
 * long as the daemon runs; at a clean stop they are shown as gone.
 */
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import type { DaemonInstance, QueueEngine } from '../engine/api';
import { findLeftovers, stopLeftovers } from '../executors/leftovers';
import type { Logger } from './logger';

/**
 * How often the daemon records that it is alive. An interrupted run is recorded as ending at its
 * daemon's last heartbeat at the latest (see recoverInterrupted), so this is also how far such
 * a run's recorded duration can overshoot; a small write every two seconds costs nothing.
 */
export const DAEMON_HEARTBEAT_MS = 2000;

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

/** Whether a process with this pid exists (one owned by another user counts). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error instanceof Error && 'code' in error && error.code === 'EPERM';
  }
}

/** Whether a recorded daemon is still running, as far as this host can tell. */
export function daemonAlive(daemon: Pick<DaemonInstance, 'pid' | 'processStart' | 'stoppedAt'>): boolean {
  if (daemon.stoppedAt !== null) return false;
  if (!pidAlive(daemon.pid)) return false;
  // Alive, but the same process only if it started when the daemon did.
  if (daemon.processStart === null) return true;
  const now = processStartTime(daemon.pid);
  return now === null || now === daemon.processStart;
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

  constructor(
    private readonly engine: QueueEngine,
    private readonly socketPath: string,
    /** The worker id this daemon's built-in executors claim under. */
    private readonly executorId: string,
    private readonly logger: Logger,
  ) {}

  /**
   * Records this daemon, then recovers what dead predecessors left running: their executors'
   * jobs (and, as before daemons were recorded, anything still running under this socket's
   * executor id, whose daemon the socket check has shown dead) go back to run again, after the
   * processes their shell jobs left are stopped, so that a job never runs twice at once.
   */
  async start(killGraceMs: number): Promise<Recovery> {
    await this.engine.registerDaemon({ id: this.id, host: this.host, pid: process.pid, processStart: processStartTime(process.pid), socketPath: this.socketPath, executorId: this.executorId });
    this.registered = true;
    const others = (await this.engine.listDaemons()).filter((d) => d.id !== this.id);
    const dead = others.filter((d) => d.host === this.host && !daemonAlive(d));
    const alive = new Set(others.filter((d) => !dead.includes(d)).map((d) => d.executorId));
    // Executor ids to recover, each with the latest moment its daemon was known alive.
    const groups = new Map<string, number | undefined>();
    const note = (executorId: string, aliveUntil: number | undefined): void => {
      if (alive.has(executorId) && executorId !== this.executorId) return;
      const known = groups.get(executorId);
      groups.set(executorId, known === undefined ? aliveUntil : aliveUntil === undefined ? known : Math.max(known, aliveUntil));
    };
    const workers = await this.engine.listWorkers();
    note(this.executorId, workers.find((w) => w.id === this.executorId)?.lastHeartbeatAt);
    for (const d of dead) note(d.executorId, d.heartbeatAt);
    // Executors of daemons from before daemons were recorded: on this host, with a dead pid.
    const recorded = new Set(others.map((d) => d.executorId));
    const unrecorded = workers.filter((w) => w.type === 'builtin' && w.host === this.host && w.id !== this.executorId && !recorded.has(w.id) && w.pid !== null && !pidAlive(w.pid));
    for (const w of unrecorded) note(w.id, w.lastHeartbeatAt);

    const ids = [...groups.keys()];
    const running = new Set(await this.engine.runningJobIds(ids));
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
    for (const [executorId, aliveUntil] of groups) recovered += await this.engine.recoverInterrupted([executorId], aliveUntil);
    for (const d of dead) await this.engine.forgetDaemon(d.id, d.pid);
    for (const w of unrecorded) await this.engine.markWorkerGone(w.id);
    if (dead.length > 0) this.logger.info('Recovered what daemons that stopped or died on this database left', { daemons: dead.map((d) => ({ pid: d.pid, socket: d.socketPath })) });
    return { recovered, predecessors: dead.length, stoppedPids };
  }

  /** Beats every DAEMON_HEARTBEAT_MS until stopped. */
  startHeartbeat(): void {
    this.timer = setInterval(() => {
      this.engine.daemonHeartbeat(this.id, process.pid).catch((error: unknown) => this.logger.warn('Could not record the daemon as alive', { error }));
    }, DAEMON_HEARTBEAT_MS);
    this.timer.unref();
  }

  /** A clean stop: no more heartbeats, and the daemon and its executors are recorded as stopped. Before the engine closes. */
  async stop(): Promise<void> {
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
