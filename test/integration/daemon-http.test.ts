/**
 * The http executor in a real daemon against a local node:http server: success, the payload's
 * method, headers and body as the server received them, a 500 or a 408 then success after
 * backoff, a 404 that is dead at once, a timeout (retried like any other failure), a truncated
 * large body.
 */
import assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { SpoolClient } from '../../shared/client/client';
import type { Job, RetryRule } from '../../shared/protocol/types';
import { startDaemon, waitFor, type TestDaemon } from '../helpers/daemon';

describe('http executor', () => {
  let daemon: TestDaemon;
  let client: SpoolClient;
  let server: http.Server;
  let base: string;
  const hits = new Map<string, number>();
  /** Every request the server received, in order, as it received it. */
  const requests: { url: string; method: string; headers: http.IncomingHttpHeaders; body: string }[] = [];

  before(async () => {
    server = http.createServer((req, res) => {
      const url = req.url ?? '/';
      const n = (hits.get(url) ?? 0) + 1;
      hits.set(url, n);
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        requests.push({ url, method: req.method ?? '', headers: req.headers, body });
        if (url === '/ok') {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ hello: 'world', method: req.method }));
        } else if (url === '/flaky') {
          res.writeHead(n === 1 ? 500 : 200);
          res.end(n === 1 ? 'try later' : 'fine now');
        } else if (url === '/timeout-once') {
          res.writeHead(n === 1 ? 408 : 200);
          res.end(n === 1 ? 'too slow to send' : 'fine now');
        } else if (url === '/slow-once') {
          // The first request never gets an answer (the job's timeout ends it); the next one does.
          if (n > 1) {
            res.writeHead(200);
            res.end('fine now');
          }
        } else if (url === '/echo') {
          res.writeHead(204);
          res.end();
        } else if (url === '/missing') {
          res.writeHead(404);
          res.end('no such thing');
        } else if (url === '/busy') {
          res.writeHead(429);
          res.end();
        } else if (url === '/big') {
          res.writeHead(200);
          res.end('x'.repeat(200_000));
        } else if (url === '/unavailable-1s' || url === '/unavailable-1h') {
          // A 503 asking to come back later, then success; the server notes when each came.
          if (n === 1) {
            res.writeHead(503, { 'retry-after': url === '/unavailable-1s' ? '1' : '3600' });
            res.end('down for maintenance');
          } else {
            res.writeHead(200);
            res.end('back');
          }
        } else if (url === '/unavailable-always') {
          res.writeHead(503, { 'retry-after': '1' });
          res.end();
        } else if (url === '/slow') {
          // Never answers; the job's timeout must end the attempt.
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    daemon = await startDaemon();
    client = await daemon.client();
  });
  after(async () => {
    await daemon.dispose();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  async function settled(id: string, states: string[]): Promise<Job> {
    return waitFor(`job ${id} to reach ${states.join('/')}`, async () => {
      const { job } = await client.call('jobs.get', { id });
      return states.includes(job.state) ? job : undefined;
    });
  }

  /** An http job on the queue "web"; `backoffMs` sets a fixed backoff without jitter between its attempts. */
  async function enqueueHttp(payload: Record<string, unknown>, options: { maxAttempts?: number; backoffMs?: number; timeoutMs?: number; retry?: RetryRule } = {}): Promise<string> {
    const { backoffMs, ...rest } = options;
    const backoff = backoffMs === undefined ? {} : { backoff: { strategy: 'fixed' as const, baseMs: backoffMs, capMs: backoffMs, jitter: 0 } };
    return (await client.call('jobs.enqueue', { queue: 'web', kind: 'http', payload, ...rest, ...backoff })).job.id;
  }

  test('a 2xx completes the job with status, headers and body', async () => {
    const id = await enqueueHttp({ url: `${base}/ok`, method: 'POST', body: { a: 1 } });
    const done = await settled(id, ['completed', 'dead']);
    assert.equal(done.state, 'completed');
    const result = done.result as { status: number; headers: Record<string, string>; body: string };
    assert.equal(result.status, 200);
    assert.equal(result.headers['content-type'], 'application/json');
    assert.deepEqual(JSON.parse(result.body), { hello: 'world', method: 'POST' });
    const received = requests.filter((r) => r.url === '/ok');
    assert.equal(received.length, 1);
    assert.equal(received[0].method, 'POST');
    assert.equal(received[0].body, '{"a":1}');
    // A JSON body without a content-type of the payload's own is sent as JSON.
    assert.equal(received[0].headers['content-type'], 'application/json');
  });

  test('the payload method, headers and a text body reach the server as given', async () => {
    const id = await enqueueHttp({ url: `${base}/echo`, method: 'put', headers: { 'X-Spool-Test': 'it reached you', 'content-type': 'text/plain' }, body: 'plain text body' });
    const done = await settled(id, ['completed', 'dead']);
    assert.equal(done.state, 'completed');
    const received = requests.filter((r) => r.url === '/echo');
    assert.equal(received.length, 1);
    assert.equal(received[0].method, 'PUT');
    assert.equal(received[0].headers['x-spool-test'], 'it reached you');
    assert.equal(received[0].headers['content-type'], 'text/plain');
    assert.equal(received[0].body, 'plain text body');
  });

  test('a 500 is retried with backoff, then succeeds', async () => {
    const id = await enqueueHttp({ url: `${base}/flaky` }, { maxAttempts: 3, backoffMs: 300 });
    const done = await settled(id, ['completed', 'dead']);
    assert.equal(done.state, 'completed');
    const { runs } = await client.call('jobs.get', { id });
    assert.equal(runs.length, 2);
    assert.equal(runs[0].outcome, 'failed');
    assert.equal(runs[0].httpStatus, 500);
    assert.ok(runs[1].startedAt - (runs[0].finishedAt ?? 0) >= 250, 'the retry waited for its backoff');
  });

  test('a 408 is retried, not permanent, then succeeds', async () => {
    const id = await enqueueHttp({ url: `${base}/timeout-once` }, { maxAttempts: 2, backoffMs: 100 });
    const done = await settled(id, ['completed', 'dead']);
    assert.equal(done.state, 'completed');
    assert.equal(done.attempts, 2);
    const { runs } = await client.call('jobs.get', { id });
    assert.deepEqual(runs.map((r) => [r.outcome, r.httpStatus]), [['failed', 408], ['completed', null]]);
  });

  test('a 404 is dead at once, whatever attempts are left', async () => {
    const id = await enqueueHttp({ url: `${base}/missing` }, { maxAttempts: 5 });
    const done = await settled(id, ['dead']);
    assert.equal(done.attempts, 1);
    assert.match(done.lastError ?? '', /404/);
  });

  test('a 429 is retried, not dead', async () => {
    const id = await enqueueHttp({ url: `${base}/busy` }, { maxAttempts: 2, backoffMs: 100 });
    const done = await settled(id, ['dead']);
    assert.equal(done.attempts, 2);
  });

  test('a request that takes longer than the job timeout fails the attempt', async () => {
    const id = await enqueueHttp({ url: `${base}/slow` }, { timeoutMs: 700, maxAttempts: 1 });
    const done = await settled(id, ['dead']);
    assert.match(done.lastError ?? '', /timed out after 700 ms/);
  });

  test('a timed-out attempt is retried, not dead at once', async () => {
    const id = await enqueueHttp({ url: `${base}/slow-once` }, { timeoutMs: 700, maxAttempts: 2, backoffMs: 100 });
    const done = await settled(id, ['completed', 'dead']);
    assert.equal(done.state, 'completed');
    assert.equal(done.attempts, 2);
    assert.equal(hits.get('/slow-once'), 2);
    const { runs } = await client.call('jobs.get', { id });
    assert.equal(runs.length, 2);
    assert.equal(runs[0].outcome, 'failed');
    assert.match(runs[0].error ?? '', /timed out after 700 ms/);
    assert.equal(runs[1].outcome, 'completed');
  });

  test('a connection error is retried', async () => {
    const id = await enqueueHttp({ url: 'http://127.0.0.1:1/' }, { maxAttempts: 2, backoffMs: 100 });
    const done = await settled(id, ['dead']);
    assert.equal(done.attempts, 2);
    assert.match(done.lastError ?? '', /ECONNREFUSED|fetch failed/);
  });

  test('a large body is truncated in the result', async () => {
    const id = await enqueueHttp({ url: `${base}/big` });
    const done = await settled(id, ['completed', 'dead']);
    const result = done.result as { body: string; truncated?: boolean };
    assert.equal(result.truncated, true);
    assert.equal(result.body.length, 64 * 1024);
  });

  test("a 503's Retry-After sets when the next attempt starts instead of the backoff", async () => {
    // The backoff alone would wait a minute: the job completing within the test's wait shows Retry-After (1 s) was used.
    const id = await enqueueHttp({ url: `${base}/unavailable-1s` }, { maxAttempts: 3, backoffMs: 60_000 });
    const done = await settled(id, ['completed', 'dead']);
    assert.equal(done.state, 'completed');
    const { runs } = await client.call('jobs.get', { id });
    assert.deepEqual(runs.map((r) => [r.outcome, r.httpStatus]), [['failed', 503], ['completed', null]]);
    const first = runs[0];
    const second = runs[1];
    assert.ok(first?.finishedAt && second, 'two runs');
    assert.ok(second.startedAt - first.finishedAt >= 900, `the second attempt waited the second Retry-After asked (${second.startedAt - first.finishedAt} ms)`);
  });

  test('a Retry-After longer than the backoff cap waits the cap', async () => {
    const id = await enqueueHttp({ url: `${base}/unavailable-1h` }, { maxAttempts: 3, backoffMs: 500 });
    const done = await settled(id, ['completed', 'dead']);
    assert.equal(done.state, 'completed', 'an hour asked, half a second waited');
    const output = await client.call('jobs.output', { id, last: 20 });
    assert.ok(output.lines.some((l) => /Retry-After asks for 3600 s; the next attempt waits 1 s \(the backoff cap is 1 s\)/.test(l.text)), 'the output says so');
  });

  test("a retry rule's never makes a 503 final, and its on retries a 404 the executor would not", async () => {
    const never = await enqueueHttp({ url: `${base}/unavailable-always` }, { maxAttempts: 5, backoffMs: 100, retry: { never: { httpStatus: [503] } } });
    const dead = await settled(never, ['dead']);
    assert.equal(dead.attempts, 1);
    assert.match(dead.lastError ?? '', /not retried: the retry rule never retries HTTP status 503/);
    const on = await enqueueHttp({ url: `${base}/missing` }, { maxAttempts: 2, backoffMs: 100, retry: { on: { httpStatus: [404] } } });
    const retried = await settled(on, ['dead']);
    assert.equal(retried.attempts, 2, 'the 404 was retried once, then out of attempts');
  });
});
