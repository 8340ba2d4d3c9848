/**
 * A daemon listening over TLS for the security tests: `--listen 127.0.0.1:0`, its certificate
 * made on first start, tokens of each scope, and raw TLS sockets that speak lines as a hostile
 * peer would (from another loopback address with `localAddress: '127.0.0.2'`).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import * as tls from 'node:tls';
import { SpoolClient } from '../../shared/client/client';
import type { TlsTarget } from '../../shared/client/endpoint';
import type { TokenScope } from '../../shared/protocol';
import { startDaemon, type StartDaemonOptions, type TestDaemon } from './daemon';

export interface TlsDaemon {
  daemon: TestDaemon;
  local: SpoolClient;
  port: number;
  fingerprint: string;
  tokens: Record<TokenScope, string>;
  /** Where a client logs in with `token`. */
  target(token: string): TlsTarget;
  /** A client logged in over TLS with `token` (closed when the daemon is disposed of). */
  connect(token: string): Promise<SpoolClient>;
  dispose(): Promise<void>;
}

export async function startTlsDaemon(options: StartDaemonOptions = {}): Promise<TlsDaemon> {
  const daemon = await startDaemon({ ...options, args: ['--listen', '127.0.0.1:0', ...(options.args ?? [])] });
  const local = await daemon.client();
  const status = await local.call('daemon.status');
  assert.ok(status.listen && status.tlsFingerprint, 'the daemon listens over TLS');
  const port = Number(status.listen.split(':').pop());
  const fingerprint = status.tlsFingerprint;
  const tokens = {} as Record<TokenScope, string>;
  for (const scope of ['read', 'worker', 'admin'] as const) tokens[scope] = (await local.call('tokens.create', { name: `t-${scope}`, scope })).token;
  const clients = new Set<SpoolClient>();
  const target = (token: string): TlsTarget => ({ host: '127.0.0.1', port, token, fingerprint });
  return {
    daemon,
    local,
    port,
    fingerprint,
    tokens,
    target,
    async connect(token) {
      const client = await SpoolClient.connect({ tls: target(token), connectTimeoutMs: 20_000, requestTimeoutMs: 60_000 });
      clients.add(client);
      return client;
    },
    async dispose() {
      for (const c of clients) c.close();
      await daemon.dispose();
    },
  };
}

/** A raw TLS socket (trusting any certificate: the test's own) collecting the lines it receives. */
export interface RawTls {
  socket: tls.TLSSocket;
  lines: string[];
  closed: Promise<void>;
  readonly isClosed: boolean;
  /** The next line received after `index`, parsed; null if the connection closed first. */
  line(index: number, timeoutMs?: number): Promise<unknown>;
}

export function rawTls(port: number, options: { localAddress?: string } = {}): Promise<RawTls> {
  return new Promise((resolve, reject) => {
    const connect: tls.ConnectionOptions & { localAddress?: string } = { host: '127.0.0.1', port, rejectUnauthorized: false };
    if (options.localAddress) connect.localAddress = options.localAddress;
    const socket = tls.connect(connect);
    const lines: string[] = [];
    let buffered = '';
    let isClosed = false;
    let wake: (() => void) | null = null;
    socket.on('data', (d: Buffer) => {
      buffered += d.toString();
      let nl: number;
      while ((nl = buffered.indexOf('\n')) >= 0) {
        lines.push(buffered.slice(0, nl));
        buffered = buffered.slice(nl + 1);
      }
      wake?.();
    });
    const closed = new Promise<void>((r) =>
      socket.once('close', () => {
        isClosed = true;
        wake?.();
        r();
      }),
    );
    socket.on('error', () => undefined);
    socket.once('secureConnect', () =>
      resolve({
        socket,
        lines,
        closed,
        get isClosed() {
          return isClosed;
        },
        async line(index, timeoutMs = 20_000) {
          const deadline = Date.now() + timeoutMs;
          while (lines.length <= index) {
            if (isClosed) return null;
            if (Date.now() > deadline) throw new Error(`No line ${index} from the daemon within ${timeoutMs} ms.`);
            await new Promise<void>((r) => {
              const timer = setTimeout(r, Math.max(1, deadline - Date.now()));
              wake = () => {
                clearTimeout(timer);
                wake = null;
                r();
              };
            });
          }
          return JSON.parse(lines[index]!) as unknown;
        },
      }),
    );
    socket.once('error', reject);
  });
}

/**
 * A well-behaved client's latency: sends `daemon.status` every 10 ms, whether or not the last one
 * was answered (so a stall shows as many slow answers, not as one), until `stop` is called;
 * gives the round trips in ms.
 */
export function measureLatency(client: SpoolClient): { stop(): Promise<{ samples: number; p50: number; p99: number; max: number }> } {
  const samples: number[] = [];
  const pending = new Set<Promise<void>>();
  let failure: unknown = null;
  const timer = setInterval(() => {
    const started = performance.now();
    const call: Promise<void> = client.call('daemon.status').then(
      () => {
        samples.push(performance.now() - started);
        pending.delete(call);
      },
      (error: unknown) => {
        failure ??= error;
        pending.delete(call);
      },
    );
    pending.add(call);
  }, 10);
  return {
    async stop() {
      clearInterval(timer);
      await Promise.all(pending);
      if (failure !== null) throw failure;
      const sorted = [...samples].sort((a, b) => a - b);
      const at = (q: number): number => Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]! * 10) / 10;
      return { samples: sorted.length, p50: at(0.5), p99: at(0.99), max: at(1) };
    },
  };
}

export interface FloodOptions {
  port: number;
  mode: 'lines' | 'hold';
  connections: number;
  localAddress?: string;
  line?: string;
  lines?: number;
  durationMs?: number;
  token?: string;
  deepBytes?: number;
  socketPath?: string;
}

export interface FloodStats {
  opened: number;
  closed: number;
  /** daemon.status calls answered after a deep line (the connection survived it). */
  answered: number;
  /** Error codes the daemon answered, and how often. */
  codes: Record<string, number>;
}

/**
 * Runs test/helpers/tlsFlood.ts in a process of its own (see there); resolves with what it saw.
 * `signal` (the test's) kills it if the test ends first; `onFull` is called once as many
 * connections are open as asked for.
 */
export function flood(options: FloodOptions, signal?: AbortSignal, onFull?: () => void): Promise<FloodStats> {
  const script = path.join(__dirname, 'tlsFlood.ts');
  const child = spawn(process.execPath, ['--import', 'tsx', script], { stdio: ['pipe', 'pipe', 'pipe'], signal });
  child.stdin.end(JSON.stringify(options));
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => {
    err += d.toString();
    if (err.startsWith('full\n')) {
      err = err.slice(5);
      onFull?.();
      onFull = undefined;
    }
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => {
      if (code === 0) resolve(JSON.parse(out) as FloodStats);
      else reject(new Error(`The flood process ended with ${code}: ${err}`));
    });
  });
}
