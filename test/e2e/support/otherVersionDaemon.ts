/**
 * A stand-in for a daemon of another Spool release: it listens on the socket and answers the
 * handshake (`daemon.status`) with a different protocol version, and `daemon.shutdown` by
 * leaving. Only one release of the daemon exists in this repository, so an older one cannot run
 * here; this speaks the same wire format (one JSON-RPC message per line) and nothing more.
 */
import * as fs from 'node:fs';
import * as net from 'node:net';
import { PROTOCOL_VERSION } from '../../../shared/protocol';

export interface OtherVersionDaemon {
  readonly protocolVersion: number;
  /** True once it has shut down (asked to, or closed). */
  readonly stopped: boolean;
  close(): Promise<void>;
}

export async function startOtherVersionDaemon(socketPath: string): Promise<OtherVersionDaemon> {
  const protocolVersion = PROTOCOL_VERSION + 1;
  const sockets = new Set<net.Socket>();
  let stopped = false;
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    let buffer = '';
    socket.on('data', (data: Buffer) => {
      buffer += data.toString('utf8');
      let nl: number;
      while ((nl = buffer.indexOf('\n')) !== -1) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        answer(socket, line);
      }
    });
  });
  const close = (): Promise<void> =>
    new Promise((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => {
        stopped = true;
        resolve();
      });
    });
  const answer = (socket: net.Socket, line: string): void => {
    const message: unknown = JSON.parse(line);
    const id: unknown = Reflect.get(message ?? {}, 'id');
    const method: unknown = Reflect.get(message ?? {}, 'method');
    if (method === 'daemon.status') {
      const now = Date.now();
      const counts = { queued: 0, running: 0, retrying: 0, completed: 0, dead: 0, cancelled: 0 };
      const result = { version: '0.0.1-other', protocolVersion, pid: process.pid, uptimeMs: 1, startedAt: now, socketPath, dbPath: '/nonexistent/spool.db', counts, executors: { running: 0, cap: 1 } };
      socket.write(JSON.stringify({ jsonrpc: '2.0', id, result }) + '\n');
    } else if (method === 'daemon.shutdown') {
      socket.write(JSON.stringify({ jsonrpc: '2.0', id, result: { ok: true } }) + '\n', () => void close());
    } else {
      socket.write(JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32601, message: `Method not found: ${String(method)}` } }) + '\n');
    }
  };
  fs.rmSync(socketPath, { force: true });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => resolve());
  });
  return {
    protocolVersion,
    get stopped() {
      return stopped;
    },
    close,
  };
}
