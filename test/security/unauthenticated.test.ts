/**
 * Connections that never log in cannot keep a client out: at most 16 per address and 64 in all
 * wait to log in, and a new one closes the oldest waiting one (of its own address, or of the
 * address with the most) instead of being refused, so a client that logs in right after
 * connecting gets in while loops open and hold connections.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { SpoolClient } from '../../shared/client/client';
import { ErrorCode } from '../../shared/protocol';
import { MAX_UNAUTHENTICATED, MAX_UNAUTHENTICATED_PER_SOURCE } from '../../daemon/rpc/server';
import { flood, rawTls, startTlsDaemon, type TlsDaemon } from '../helpers/tls';
import { waitFor } from '../helpers/wait';

let d: TlsDaemon;
before(async () => {
  d = await startTlsDaemon();
});
after(() => d.dispose());

test(`a client logs in while 64 loops open connections from its own address and never log in`, async (t) => {
  const durationMs = 20_000;
  let full = false;
  const running = flood({ port: d.port, mode: 'hold', connections: 64, durationMs }, t.signal, () => (full = true));
  await waitFor('the loops to open their 64 connections', () => full, 20_000);
  let tried = 0;
  let loggedIn = 0;
  const failures: string[] = [];
  const started = Date.now();
  while (Date.now() - started < durationMs - 5000) {
    tried++;
    try {
      const client = await SpoolClient.connect({ tls: d.target(d.tokens.read), connectTimeoutMs: 5000, requestTimeoutMs: 5000 });
      await client.call('queues.list');
      client.close();
      loggedIn++;
    } catch (error) {
      failures.push((error as Error).message);
    }
  }
  const stats = await running;
  console.log(`64 loops holding unauthenticated connections: ${JSON.stringify(stats)}; a client logged in ${loggedIn} times of ${tried}`);
  assert.ok(stats.opened > 64, `the loops opened ${stats.opened} connections`);
  assert.ok(tried >= 5, `only ${tried} tries in ${durationMs} ms`);
  assert.ok(loggedIn >= tried * 0.9, `${loggedIn} of ${tried} logins; ${failures.slice(0, 3).join(' | ')}`);
});

test(`past ${MAX_UNAUTHENTICATED_PER_SOURCE} waiting from one address, its oldest is closed, told why; another address keeps its own`, async (t) => {
  const other = await rawTls(d.port, { localAddress: '127.0.0.5' });
  t.after(() => other.socket.destroy());
  const first = await rawTls(d.port, { localAddress: '127.0.0.4' });
  t.after(() => first.socket.destroy());
  const rest = await Promise.all(Array.from({ length: MAX_UNAUTHENTICATED_PER_SOURCE }, () => rawTls(d.port, { localAddress: '127.0.0.4' })));
  t.after(() => rest.forEach((r) => r.socket.destroy()));
  await first.closed;
  const told = JSON.parse(first.lines[0] ?? '{}') as { error?: { code: number; message: string } };
  assert.equal(told.error?.code, ErrorCode.Unauthorized);
  assert.match(told.error?.message ?? '', /closed to make room: 16 connections .* had not logged in yet, and this one was the oldest/);
  assert.ok(!other.isClosed, 'the other address was not pushed out');
  assert.ok(rest.every((r) => !r.isClosed));
  assert.ok(MAX_UNAUTHENTICATED > MAX_UNAUTHENTICATED_PER_SOURCE);
});
