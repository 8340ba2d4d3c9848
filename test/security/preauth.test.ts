/**
 * Nothing a peer sends stalls the other clients: before login a line over TLS holds at most
 * 4 KiB, and a line that nests too deep is refused as it arrives, on any connection, before any
 * parser sees it. The latency figures of a well-behaved client are printed (BENCHMARKS.md has them).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ErrorCode, LIMITS } from '../../shared/protocol';
import { PRE_LOGIN_MAX_LINE_BYTES } from '../../daemon/rpc/server';
import { flood, measureLatency, rawTls, startTlsDaemon, type RawTls, type TlsDaemon } from '../helpers/tls';

/**
 * A well-behaved client's p99 must stay under this. Measured on 2 busy cores: 100-230 ms (the
 * machine's own load); before the fix the same lines stopped every client for 14-20 s. The bound
 * leaves room for a loaded machine and still fails on any stall of that kind.
 */
const P99_BOUND_MS = 1000;

interface Reply {
  id: number | string | null;
  result?: unknown;
  error?: { code: number; message: string; data?: { limit?: number } };
}

let d: TlsDaemon;
before(async () => {
  d = await startTlsDaemon();
});
after(() => d.dispose());

async function loggedIn(token: string): Promise<RawTls> {
  const raw = await rawTls(d.port);
  raw.socket.write(JSON.stringify({ jsonrpc: '2.0', id: 'login', method: 'auth.login', params: { token } }) + '\n');
  const answer = (await raw.line(0)) as Reply;
  assert.ok(answer.result, JSON.stringify(answer));
  return raw;
}

test(`before login a line holds at most ${PRE_LOGIN_MAX_LINE_BYTES} bytes: a longer one is refused naming the limit and the connection is closed`, async () => {
  const raw = await rawTls(d.port);
  raw.socket.write(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'auth.login', params: { token: 'x'.repeat(PRE_LOGIN_MAX_LINE_BYTES) } }) + '\n');
  const answer = (await raw.line(0)) as Reply;
  assert.equal(answer.error?.code, ErrorCode.InvalidRequest, JSON.stringify(answer));
  assert.equal(answer.error?.data?.limit, PRE_LOGIN_MAX_LINE_BYTES);
  assert.match(answer.error?.message ?? '', /before auth\.login succeeds, a line may hold at most 4096 bytes/);
  await raw.closed;
});

test('after login a line may hold up to the full limit: a request of 900 KB is handled', async (t) => {
  const raw = await loggedIn(d.tokens.worker);
  t.after(() => raw.socket.destroy());
  const payload = { text: 'y'.repeat(900_000) };
  raw.socket.write(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'jobs.enqueue', params: { queue: 'big-lines', kind: 'k', payload } }) + '\n');
  const answer = (await raw.line(1)) as Reply;
  assert.equal(answer.error, undefined, JSON.stringify(answer).slice(0, 300));
  assert.ok(LIMITS.maxLineBytes > 900_000);
});

for (const over of ['TLS, logged in', 'the Unix socket'] as const) {
  test(`a 16 MiB line nested 8 million deep over ${over} is refused as it arrives; another client's p99 stays low`, async (t) => {
    const bystander = await d.connect(d.tokens.read);
    await bystander.call('daemon.status');
    const probe = measureLatency(bystander);
    const started = performance.now();
    const target = over === 'the Unix socket' ? { socketPath: d.daemon.socketPath } : { token: d.tokens.admin };
    const stats = await flood({ port: d.port, mode: 'lines', connections: 1, deepBytes: LIMITS.maxLineBytes - 16, ...target }, t.signal);
    const elapsed = Math.round(performance.now() - started);
    const figures = await probe.stop();
    console.log(`deep 16 MiB line over ${over}: ${JSON.stringify(stats)} in ${elapsed} ms; a bystander's daemon.status over TLS: ${JSON.stringify(figures)} (ms)`);
    assert.deepEqual(stats.codes, { [ErrorCode.InvalidRequest]: 1 }, 'refused once');
    // The connection is still usable: the rest of the line was skipped, the next one was handled.
    assert.equal(stats.answered, 1);
    assert.ok(figures.p99 < P99_BOUND_MS, `a bystander's p99 was ${figures.p99} ms`);
  });
}

test('60 connections that have not logged in, each sending 10 lines of 349 KB, do not slow a logged-in client', async (t) => {
  const bystander = await d.connect(d.tokens.read);
  await bystander.call('daemon.status');
  const probe = measureLatency(bystander);
  // A login whose token is an array of 349 KB of numbers: costly to parse, and refused only after.
  const line = `{"jsonrpc":"2.0","id":1,"method":"auth.login","params":{"token":[${'0,'.repeat(174_000)}0]}}`;
  const stats = await flood({ port: d.port, mode: 'lines', connections: 60, lines: 10, line, localAddress: '127.0.0.2' }, t.signal);
  const figures = await probe.stop();
  console.log(`60 unauthenticated connections x 10 lines of ${line.length + 1} bytes: ${JSON.stringify(stats)}; a logged-in client's daemon.status over TLS: ${JSON.stringify(figures)} (ms)`);
  assert.equal(stats.closed, 60, 'the daemon closed every one');
  // Refused for the line's size, or (while many were opening at once) closed to make room; an
  // answer may be lost when the daemon closes while the peer is still sending (a reset).
  assert.deepEqual(Object.keys(stats.codes).filter((code) => ![ErrorCode.InvalidRequest, ErrorCode.Unauthorized].map(String).includes(code)), []);
  assert.ok(figures.p99 < P99_BOUND_MS, `a logged-in client's p99 was ${figures.p99} ms`);
});
