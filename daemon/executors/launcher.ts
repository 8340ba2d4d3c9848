/**
 * The daemon's launcher: a small Node process (launcherMain.ts, dist/launcher.js) that starts the
 * shell jobs' processes on the daemon's request and hands back their pids, output and exits.
 *
 * Why: Node starts a process by forking the process that asks, and forking the daemon copies the
 * page tables of its whole heap and leaves every page it writes afterwards to be copied again;
 * that was most of the daemon's time on a short shell job. Forking the launcher costs a fraction
 * of it, whatever the daemon's size.
 *
 * What stays as it was: the shell runs in a process group (and cgroup) of its own with the
 * environment, working folder and limits the daemon gives it; its stdout and stderr come back in
 * the order they were read, and the daemon still signals the group itself (it knows the pid), so
 * cancel, timeout and pause do not pass through the launcher.
 *
 * Failure modes:
 * - The launcher dies (killed, out of memory): every command it had started is killed (its group
 *   SIGKILLed; the daemon's kill of the group and its cgroup follow as at any end) and ends as
 *   killed, with a line in the job's output saying why; a command not yet started fails to
 *   start. The next job starts a new launcher.
 * - It cannot be started, or dies before it is ready (the commands it was asked to start go to
 *   the next one), three times in a row, or its file is missing: the daemon starts the jobs'
 *   processes itself from then on, and says so in its log.
 * - It does not say it started a command within START_TIMEOUT_MS (stopped, stuck): it is killed,
 *   and what it had started ends as above.
 * - The daemon dies, even by SIGKILL: the IPC channel closes and the launcher exits at once. The
 *   jobs it had started are left as they are, and the next daemon's recovery handles them as it
 *   handles those of a daemon that started them itself.
 */
import { fork, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { sendToGroup, spawnHere, type SpawnEvents, type SpawnRequest, type Spawner } from '../../shared/client/processGroup';
import { errorMessage } from '../../shared/protocol/errors';
import type { Logger } from '../lifecycle/logger';

/** From the daemon to the launcher. */
export type LauncherRequest = { t: 'start'; id: number; request: SpawnRequest } | { t: 'closePipes'; id: number };

/** From the launcher to the daemon: `ready` once, then each started process's events (processGroup.ts's SpawnEvents). */
export type LauncherReply =
  | { t: 'ready' }
  | { t: 'spawned'; id: number; pid: number }
  | { t: 'output'; id: number; stream: 'stdout' | 'stderr'; chunk: Uint8Array }
  | { t: 'error'; id: number; message: string; code?: string }
  | { t: 'exit'; id: number; code: number | null; signal: NodeJS.Signals | null }
  | { t: 'close'; id: number }
  | { t: 'problem'; id: number; message: string };

/** Launchers in a row that may fail to start before the daemon starts processes itself. */
const START_FAILURES = 3;

/**
 * How long the launcher may take to say it started a command: far past what a fork takes on a
 * loaded machine. A launcher that does not answer in time (stopped, stuck) is killed, so that its
 * jobs end and the next job gets a new one.
 */
export const START_TIMEOUT_MS = 10_000;

/**
 * The launcher's heap: it holds a few requests at a time. A small young generation keeps the
 * pages a fork copies few.
 */
const LAUNCHER_FLAGS = ['--max-old-space-size=32', '--max-semi-space-size=1'];

interface Started {
  request: SpawnRequest;
  events: SpawnEvents;
  pid: number | undefined;
  exited: boolean;
  /** Until the launcher says it started the command (START_TIMEOUT_MS). */
  startTimer?: NodeJS.Timeout;
}

/**
 * Where the launcher's code is: dist/launcher.js beside dist/daemon.js; run from source (tests
 * under tsx), launcherMain.ts through tsx.
 */
export function launcherScript(): { script: string; execArgv: string[] } | null {
  const bundled = path.join(__dirname, 'launcher.js');
  if (fs.existsSync(bundled)) return { script: bundled, execArgv: [] };
  const source = path.join(__dirname, 'launcherMain.ts');
  return fs.existsSync(source) ? { script: source, execArgv: ['--import', 'tsx'] } : null;
}

export class Launcher {
  private child: ChildProcess | null = null;
  private ready = false;
  private nextId = 1;
  private readonly started = new Map<number, Started>();
  /** Launchers in a row that exited or failed before they were ready. */
  private failures = 0;
  /** Set once the daemon starts processes itself: why. */
  private fallback: string | null = null;
  private closed = false;

  constructor(
    private readonly logger: Logger,
    private readonly where: { script: string; execArgv: string[] } | null = launcherScript(),
  ) {
    if (where === null) {
      this.fallback = `${path.join(__dirname, 'launcher.js')} is missing`;
      logger.warn('The launcher of shell jobs is missing; the daemon starts shell jobs itself', { reason: this.fallback });
    }
  }

  /** The launcher's pid while one runs (tests, status). */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** A Spawner (processGroup.ts) that starts the process from the launcher, or from the daemon when it cannot. */
  readonly spawn: Spawner = (request, events) => {
    const child = this.fallback === null && !this.closed ? this.launcher() : null;
    if (child === null) return spawnHere(request, events);
    const id = this.nextId++;
    const run: Started = { request, events, pid: undefined, exited: false };
    this.started.set(id, run);
    run.startTimer = setTimeout(() => {
      if (run.pid !== undefined || this.started.get(id) !== run || this.child !== child) return;
      this.logger.warn('The launcher of shell jobs did not start a command in time; killing it', { waitedMs: START_TIMEOUT_MS, launcher: child.pid });
      child.kill('SIGKILL');
    }, START_TIMEOUT_MS).unref();
    this.send(child, { t: 'start', id, request });
    return { closePipes: () => this.send(child, { t: 'closePipes', id }) };
  };

  /** Stops the launcher (the daemon's shutdown, once its jobs are done or stopped). */
  close(): void {
    this.closed = true;
    const child = this.child;
    if (child?.connected) child.disconnect();
  }

  private send(child: ChildProcess, request: LauncherRequest): void {
    if (this.child !== child || !child.connected) return;
    child.send(request, (error) => {
      // Its exit follows, and settles every process it was asked to start.
      if (error) this.logger.debug('Could not send a request to the launcher', { error });
    });
  }

  /** The running launcher, started if there is none; null if it cannot be (then the daemon spawns). */
  private launcher(): ChildProcess | null {
    if (this.child !== null) return this.child;
    if (this.where === null) return null;
    let child: ChildProcess;
    try {
      child = fork(this.where.script, [], {
        execArgv: [...LAUNCHER_FLAGS, ...this.where.execArgv],
        // None of the daemon's variables (its store's address, credentials): each request carries the job's whole environment.
        env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin' },
        serialization: 'advanced',
        stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      });
    } catch (error) {
      this.failed(`it could not be started: ${errorMessage(error)}`);
      return null;
    }
    this.child = child;
    this.ready = false;
    // Neither the process nor its channel keeps the daemon running.
    child.unref();
    child.channel?.unref();
    child.on('message', (reply: LauncherReply) => this.reply(reply));
    child.once('error', (error) => this.lost(child, errorMessage(error)));
    child.once('exit', (code, signal) => {
      const how = signal !== null ? `killed by ${signal}` : `exit code ${code}`;
      // What it sent before it died is read first: the channel closes once all of it is delivered.
      if (child.connected) child.once('disconnect', () => this.lost(child, how));
      else this.lost(child, how);
    });
    return child;
  }

  private reply(reply: LauncherReply): void {
    if (reply.t === 'ready') {
      this.ready = true;
      this.failures = 0;
      return;
    }
    const run = this.started.get(reply.id);
    if (run === undefined) return;
    switch (reply.t) {
      case 'spawned':
        clearTimeout(run.startTimer);
        run.pid = reply.pid;
        run.events.spawned(reply.pid);
        break;
      case 'output':
        run.events.output(reply.stream, Buffer.from(reply.chunk.buffer, reply.chunk.byteOffset, reply.chunk.byteLength));
        break;
      case 'error': {
        clearTimeout(run.startTimer);
        this.started.delete(reply.id);
        const error: NodeJS.ErrnoException = new Error(reply.message);
        if (reply.code !== undefined) error.code = reply.code;
        run.events.error(error);
        break;
      }
      case 'exit':
        run.exited = true;
        run.events.exit(reply.code, reply.signal);
        break;
      case 'close':
        this.started.delete(reply.id);
        run.events.close();
        break;
      case 'problem':
        run.events.problem(reply.message);
        break;
    }
  }

  /** The launcher is gone: what it had started is killed and ends; the next request starts another. */
  private lost(child: ChildProcess, how: string): void {
    if (this.child !== child) return;
    this.child = null;
    const wasReady = this.ready;
    this.ready = false;
    const runs = [...this.started.values()];
    this.started.clear();
    const killed = runs.filter((run) => run.pid !== undefined && !run.exited).length;
    if (this.closed) {
      // Shutting down: nothing more to tell.
    } else if (wasReady) {
      this.logger.warn('The launcher of shell jobs exited; the next job starts another', { exit: how, jobsKilled: killed });
    } else {
      this.failed(`it exited before it was ready (${how})`);
    }
    for (const run of runs) {
      clearTimeout(run.startTimer);
      if (run.pid === undefined) {
        // A launcher that never said it was ready started nothing: the command goes to the next
        // one (or to the daemon). One that was ready may have started it and died before saying so.
        if (!wasReady && !this.closed) this.spawn(run.request, run.events);
        else run.events.error(new Error(`the launcher process exited (${how}) before the command started`));
        continue;
      }
      if (!run.exited) {
        // Its output pipes went with the launcher: it would run on unheard, so it is stopped.
        sendToGroup(run.pid, 'SIGKILL');
        run.events.problem(`The launcher process that started the command exited (${how}); the command was killed.`);
        run.events.exit(null, 'SIGKILL');
      }
      run.events.close();
    }
  }

  private failed(reason: string): void {
    this.failures += 1;
    if (this.failures < START_FAILURES) {
      this.logger.warn('The launcher of shell jobs failed to start; trying again at the next job', { reason });
      return;
    }
    this.fallback = reason;
    this.logger.warn('The launcher of shell jobs failed to start several times; the daemon starts shell jobs itself from now on', { reason, tries: this.failures });
  }
}
