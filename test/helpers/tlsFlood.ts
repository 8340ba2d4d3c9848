/**
 * A hostile peer in a process of its own, so that its work (TLS handshakes, encrypting hundreds
 * of megabytes) does not slow the test process whose client is being timed. Run:
 *
 *   echo '{"port":7420,"mode":"lines",...}' | node --import tsx test/helpers/tlsFlood.ts
 *
 * - mode "lines": `connections` connections each write `lines` copies of `line` and wait until
 *   the daemon closes them.
 *   With `token`, each logs in first; with `deepBytes`, the line is '[' and ']' nested that many
 *   bytes deep, and a daemon.status follows it (counted in `answered` when answered); with
 *   `socketPath`, the connections go to the Unix socket instead.
 * - mode "hold": `connections` loops each open a connection, never log in, and open another as
 *   soon as the daemon closes it, for `durationMs`.
 *
 * It prints one JSON line: connections opened, closed, and the error codes answered.
 */
import * as net from 'node:net';
import * as tls from 'node:tls';
import type { FloodOptions } from './tls';


let options: FloodOptions;
const stats = { opened: 0, closed: 0, answered: 0, codes: {} as Record<string, number> };

function open(onClose: () => void, write?: Buffer): void {
  let socket: net.Socket;
  if (options.socketPath) socket = net.connect(options.socketPath);
  else {
    const connect: tls.ConnectionOptions & { localAddress?: string } = { host: '127.0.0.1', port: options.port, rejectUnauthorized: false };
    if (options.localAddress) connect.localAddress = options.localAddress;
    socket = tls.connect(connect);
  }
  let received = '';
  let loggedIn = options.token === undefined;
  const send = (): void => {
    if (write) socket.write(write);
    if (options.deepBytes) socket.write('{"jsonrpc":"2.0","id":"status","method":"daemon.status"}\n');
  };
  socket.on(options.socketPath ? 'connect' : 'secureConnect', () => {
    // Told once (on stderr) when as many connections are open as asked for: the flood is on.
    if (++stats.opened === options.connections) process.stderr.write('full\n');
    if (options.token) socket.write(JSON.stringify({ jsonrpc: '2.0', id: 'login', method: 'auth.login', params: { token: options.token } }) + '\n');
    else send();
  });
  socket.on('data', (d: Buffer) => {
    received += d.toString();
    if (!loggedIn && received.includes('\n')) {
      loggedIn = true;
      send();
    }
    if (options.deepBytes && received.includes('"id":"status","result"')) socket.end();
  });
  socket.on('error', () => undefined);
  socket.on('close', () => {
    stats.closed++;
    for (const line of received.split('\n')) {
      if (!line) continue;
      const message = JSON.parse(line) as { id?: unknown; error?: { code: number } };
      if (message.error) stats.codes[message.error.code] = (stats.codes[message.error.code] ?? 0) + 1;
      else if (message.id === 'status') stats.answered++;
    }
    onClose();
  });
}

function deepLine(bytes: number): Buffer {
  const half = Math.floor(bytes / 2);
  const line = Buffer.alloc(half * 2 + 1, 0x5b);
  line.fill(0x5d, half, half * 2);
  line[half * 2] = 0x0a;
  return line;
}

async function main(): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  options = JSON.parse(Buffer.concat(chunks).toString()) as FloodOptions;
  if (options.mode === 'lines') {
    const data = options.deepBytes ? deepLine(options.deepBytes) : Buffer.from(`${options.line ?? ''}\n`.repeat(options.lines ?? 1));
    await Promise.all(Array.from({ length: options.connections }, () => new Promise<void>((resolve) => open(resolve, data))));
  } else {
    const until = Date.now() + (options.durationMs ?? 10_000);
    const loop = (): void => {
      if (Date.now() < until) open(loop);
    };
    for (let i = 0; i < options.connections; i++) loop();
    await new Promise((resolve) => setTimeout(resolve, until - Date.now()));
  }
  process.stdout.write(JSON.stringify(stats) + '\n');
  // Connections still open (mode "hold") go with the process.
  process.exit(0);
}

void main();
