/**
 * The http executor in a real daemon against a local node:http server: success, a 500 then
 * success after backoff, a 404 that is dead at once, a timeout, a truncated large body.
 */
import assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { SpoolClient } from '../../shared/client';
import type { Job } from '../../shared/types';
import { startDaemon, waitFor, type TestDaemon } from '../helpers/daemon';

describe('http executor', () => {
  let daemon: TestDaemon;
  let client: SpoolClient;
  let server: http.Server;
  let base: string;
  const hits = new Map<string, number>();
  const bodies: string[] = [];

  before(async () => {
    server = http.createServer((req, res) => {
      const url = req.url ?? '/';
      const n = (hits.get(url) ?? 0) + 1;
      hits.set(url, n);
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        bodies.push(body);
        if (url === '/ok') {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ hello: 'world', method: req.method }));
        } else if (url === '/flaky') {
          res.writeHead(n === 1 ? 500 : 200);
          res.end(n === 1 ? 'try later' : 'fine now');
        } else if (url === '/missing') {
          res.writeHead(404);
          res.end('no such thing');
        } else if (url === '/busy') {
          res.writeHead(429);
          res.end();
        } else if (url === '/big') {
          res.writeHead(200);
          res.end('x'.repeat(200_000));
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

  test('a 2xx completes the job with status, headers and body', async () => {
    const { job } = await client.call('jobs.enqueue', { queue: 'web', kind: 'http', payload: { url: `${base}/ok`, method: 'POST', body: { a: 1 } } });
    const done = await settled(job.id, ['completed', 'dead']);
    assert.equal(done.state, 'completed');
    const result = done.result as { status: number; headers: Record<string, string>; body: string };
    assert.equal(result.status, 200);
    assert.equal(result.headers['content-type'], 'application/json');
    assert.deepEqual(JSON.parse(result.body), { hello: 'world', method: 'POST' });
    assert.ok(bodies.includes('{"a":1}'));
  });

  test('a 500 is retried with backoff, then succeeds', async () => {
    const { job } = await client.call('jobs.enqueue', {
      queue: 'web',
      kind: 'http',
      maxAttempts: 3,
      backoff: { strategy: 'fixed', baseMs: 300, capMs: 300, jitter: 0 },
      payload: { url: `${base}/flaky` },
    });
    const done = await settled(job.id, ['completed', 'dead']);
    assert.equal(done.state, 'completed');
    const { runs } = await client.call('jobs.get', { id: job.id });
    assert.equal(runs.length, 2);
    assert.equal(runs[0].outcome, 'failed');
    assert.equal(runs[0].httpStatus, 500);
    assert.ok(runs[1].startedAt - (runs[0].finishedAt ?? 0) >= 250, 'the retry waited for its backoff');
  });

  test('a 404 is dead at once, whatever attempts are left', async () => {
    const { job } = await client.call('jobs.enqueue', { queue: 'web', kind: 'http', maxAttempts: 5, payload: { url: `${base}/missing` } });
    const done = await settled(job.id, ['dead']);
    assert.equal(done.attempts, 1);
    assert.match(done.lastError ?? '', /404/);
  });

  test('a 429 is retried, not dead', async () => {
    const { job } = await client.call('jobs.enqueue', {
      queue: 'web',
      kind: 'http',
      maxAttempts: 2,
      backoff: { strategy: 'fixed', baseMs: 100, capMs: 100, jitter: 0 },
      payload: { url: `${base}/busy` },
    });
    const done = await settled(job.id, ['dead']);
    assert.equal(done.attempts, 2);
  });

  test('a request that takes longer than the job timeout fails the attempt', async () => {
    const { job } = await client.call('jobs.enqueue', { queue: 'web', kind: 'http', timeoutMs: 700, maxAttempts: 1, payload: { url: `${base}/slow` } });
    const done = await settled(job.id, ['dead']);
    assert.match(done.lastError ?? '', /timed out after 700 ms/);
  });

  test('a connection error is retried', async () => {
    const { job } = await client.call('jobs.enqueue', {
      queue: 'web',
      kind: 'http',
      maxAttempts: 2,
      backoff: { strategy: 'fixed', baseMs: 100, capMs: 100, jitter: 0 },
      payload: { url: 'http://127.0.0.1:1/' },
    });
    const done = await settled(job.id, ['dead']);
    assert.equal(done.attempts, 2);
    assert.match(done.lastError ?? '', /ECONNREFUSED|fetch failed/);
  });

  test('a large body is truncated in the result', async () => {
    const { job } = await client.call('jobs.enqueue', { queue: 'web', kind: 'http', payload: { url: `${base}/big` } });
    const done = await settled(job.id, ['completed', 'dead']);
    const result = done.result as { body: string; truncated?: boolean };
    assert.equal(result.truncated, true);
    assert.equal(result.body.length, 64 * 1024);
  });
});
