/**
 * Starts a real daemon for a test: the built `dist/daemon.js` as its own process, on a socket and
 * a database in a fresh temporary folder. `startDaemon` resolves once the daemon answers
 * `daemon.status` (polled with a deadline, never a fixed sleep).
 *
 *   const daemon = await startDaemon();
 *   after(() => daemon.dispose());            // kills it if still running, removes the folder
 *   const client = await daemon.client();     // closed by dispose()
 *
 * The daemon's stderr is kept (`daemon.log()`) and printed when start-up fails, so a failing
 * test shows why. Run `npm run build` first (`npm test` does).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { SpoolClient } from '../../shared/client/client';
import { waitFor } from './wait';

export { waitFor };

export const DAEMON_SCRIPT = path.resolve(__dirname, '..', '..', 'dist', 'daemon.js');

export interface StartDaemonOptions {
  /** Reuse a folder (e.g. a second daemon on the same database). Default: a new temp folder. */
  dir?: string;
  /** Default `<dir>/spool.sock`. */
  socketPath?: string;
  /** Default `<dir>/spool.db`. */
  dbPath?: string;
  /** More command-line arguments, e.g. ['--grace', '500ms']. */
  args?: string[];
  env?: NodeJS.ProcessEnv;
  /** How long start-up may take. Default 20 s (the machine is shared and busy). */
  startTimeoutMs?: number;
}

export interface TestDaemon {
  readonly dir: string;
  readonly socketPath: string;
  readonly dbPath: string;
  /** The current process (changes on restart). */
  readonly process: ChildProcess;
  readonly pid: number;
  /** A new connected client; every client made here is closed by stop/kill/dispose. */
  client(): Promise<SpoolClient>;
  /** SIGTERM, and wait until the process has exited. */
  stop(): Promise<void>;
  /** SIGKILL, and wait until the process has exited. */
  kill(): Promise<void>;
  /** Stop (if running) and start again with the same folder, socket, database and arguments. */
  restart(): Promise<void>;
  /** Everything the daemon wrote to stderr so far (all its lives). */
  log(): string;
  /** Kill if running, close clients, remove the temporary folder (unless `dir` was given). */
  dispose(): Promise<void>;
}

const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

export async function startDaemon(options: StartDaemonOptions = {}): Promise<TestDaemon> {
  const ownDir = options.dir === undefined;
  const dir = options.dir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'spool-test-'));
  const socketPath = options.socketPath ?? path.join(dir, 'spool.sock');
  const dbPath = options.dbPath ?? path.join(dir, 'spool.db');
  const args = [DAEMON_SCRIPT, '--socket', socketPath, '--db', dbPath, ...(options.args ?? [])];
  const clients = new Set<SpoolClient>();
  let stderr = '';
  let child: ChildProcess;

  const spawnOne = async (): Promise<void> => {
    const env = { ...process.env, ...options.env };
    const proc = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
    running.add(proc);
    proc.once('exit', () => running.delete(proc));
    proc.stdout?.on('data', (d: Buffer) => (stderr += d.toString()));
    proc.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    child = proc;
    await waitUntilAnswering(proc, socketPath, options.startTimeoutMs ?? 20_000, () => stderr);
  };

  const closeClients = (): void => {
    for (const c of clients) c.close();
    clients.clear();
  };

  const endWith = async (signal: NodeJS.Signals, timeoutMs: number): Promise<void> => {
    closeClients();
    const proc = child;
    if (proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
    proc.kill(signal);
    const timer = setTimeout(() => proc.kill('SIGKILL'), timeoutMs);
    await exited;
    clearTimeout(timer);
  };

  try {
    await spawnOne();
  } catch (error) {
    // Nobody gets a TestDaemon to dispose of, so the folder made for it goes here.
    if (ownDir) fs.rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const daemon: TestDaemon = {
    dir,
    socketPath,
    dbPath,
    get process() {
      return child;
    },
    get pid() {
      return child.pid ?? -1;
    },
    async client() {
      const c = await SpoolClient.connect({ socketPath, requestTimeoutMs: 60_000 });
      clients.add(c);
      return c;
    },
    stop: () => endWith('SIGTERM', 30_000),
    kill: () => endWith('SIGKILL', 10_000),
    async restart() {
      await endWith('SIGTERM', 30_000);
      await spawnOne();
    },
    log: () => stderr,
    async dispose() {
      await endWith('SIGKILL', 10_000);
      if (ownDir) fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  return daemon;
}

/** Polls `daemon.status` until it answers, the process exits, or the deadline passes. */
async function waitUntilAnswering(proc: ChildProcess, socketPath: string, timeoutMs: number, log: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (proc.exitCode !== null || proc.signalCode !== null) {
      throw new Error(`The daemon exited during start-up (${proc.signalCode ?? `exit code ${proc.exitCode}`}). Its output:\n${log()}`);
    }
    if (fs.existsSync(socketPath)) {
      const answered = await tryStatus(socketPath);
      if (answered) return;
    }
    if (Date.now() > deadline) {
      proc.kill('SIGKILL');
      throw new Error(`The daemon did not answer on ${socketPath} within ${timeoutMs} ms. Its output:\n${log()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

async function tryStatus(socketPath: string): Promise<boolean> {
  let client: SpoolClient | null = null;
  try {
    client = await SpoolClient.connect({ socketPath, connectTimeoutMs: 2000, requestTimeoutMs: 5000 });
    await client.call('daemon.status');
    return true;
  } catch {
    // Not up yet (refused, or listening but not ready): the caller polls again.
    return false;
  } finally {
    client?.close();
  }
}

/** True while the process exists and is not a zombie (a zombie has already been stopped). */
export function processAlive(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    // No /proc entry: the process is gone.
    return false;
  }
}

/**
 * A bare socket to the daemon for tests that send what no well-behaved client would: raw bytes,
 * broken JSON, huge lines. Messages from the daemon are parsed and queued in arrival order.
 */
export class RawConnection {
  private buffer = '';
  private readonly messages: unknown[] = [];
  private waiters: (() => void)[] = [];
  private ended = false;
  readonly closed: Promise<void>;

  private constructor(private readonly socket: net.Socket) {
    socket.on('data', (data: Buffer) => {
      this.buffer += data.toString('utf8');
      let nl: number;
      while ((nl = this.buffer.indexOf('\n')) !== -1) {
        const line = this.buffer.slice(0, nl);
        this.buffer = this.buffer.slice(nl + 1);
        if (line.length > 0) this.messages.push(JSON.parse(line));
      }
      this.notify();
    });
    this.closed = new Promise((resolve) => socket.once('close', () => resolve()));
    socket.on('error', () => undefined);
    void this.closed.then(() => {
      this.ended = true;
      this.notify();
    });
  }

  static async open(socketPath: string): Promise<RawConnection> {
    const socket = net.createConnection(socketPath);
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', () => resolve());
      socket.once('error', reject);
    });
    return new RawConnection(socket);
  }

  get isClosed(): boolean {
    return this.ended;
  }

  /** Writes bytes as they are; returns once they are handed to the kernel (or the socket died). */
  write(data: string | Buffer): Promise<void> {
    return new Promise((resolve) => {
      if (this.ended) return resolve();
      this.socket.write(data, () => resolve());
    });
  }

  /** The next message, waiting up to `timeoutMs`; null if the connection closed first. */
  async next(timeoutMs = 20_000): Promise<unknown> {
    const deadline = Date.now() + timeoutMs;
    while (this.messages.length === 0) {
      if (this.ended) return null;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`No message from the daemon within ${timeoutMs} ms.`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return this.messages.shift();
  }

  /** Sends one request object and returns the next message (tests send one at a time). */
  async call(message: unknown): Promise<unknown> {
    await this.write(JSON.stringify(message) + '\n');
    return this.next();
  }

  /**
   * Writes `data` and half-closes at once, as `echo … | socat` does: the request and the end of
   * the stream reach the daemon together.
   */
  endWriting(data?: string): void {
    if (data === undefined) this.socket.end();
    else this.socket.end(data);
  }

  close(): void {
    this.socket.destroy();
  }

  private notify(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }
}
