/**
 * One rule for null: it is a value, not an absence. `params: null`, and null for a field whose
 * schema does not say what null means, are refused with InvalidParams naming the field; a field
 * left out is absent. Where the schema allows null (queues.configure: null removes a setting), it
 * keeps that meaning.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ErrorCode } from '../../shared/protocol';
import { RawConnection, startDaemon, type TestDaemon } from '../helpers/daemon';

interface Reply {
  id: number;
  result?: unknown;
  error?: { code: number; message: string; data?: { field?: string } };
}

let daemon: TestDaemon;
let raw: RawConnection;
let nextId = 1;
before(async () => {
  daemon = await startDaemon();
  raw = await RawConnection.open(daemon.socketPath);
});
after(async () => {
  raw.close();
  await daemon.dispose();
});

async function call(method: string, params?: unknown): Promise<Reply> {
  const message: Record<string, unknown> = { jsonrpc: '2.0', id: nextId++, method };
  if (params !== undefined) message['params'] = params;
  return (await raw.call(message)) as Reply;
}

const enqueue = { queue: 'nulls', kind: 'k' };

test('params: null is refused with InvalidParams naming params; params left out are none', async () => {
  for (const method of ['daemon.status', 'jobs.list', 'queues.list', 'jobs.enqueue']) {
    const answer = await call(method, null);
    assert.equal(answer.error?.code, ErrorCode.InvalidParams, `${method}: ${JSON.stringify(answer)}`);
    assert.equal(answer.error?.data?.field, 'params');
    assert.match(answer.error?.message ?? '', /leave "params" out \(got null\)/);
  }
  assert.ok((await call('daemon.status')).result);
  assert.ok((await call('jobs.list')).result);
});

test('null for an optional field is refused with InvalidParams naming the field', async () => {
  const cases: [string, Record<string, unknown>, string][] = [
    ['jobs.enqueue', { ...enqueue, backoff: null }, 'backoff'],
    ['jobs.enqueue', { ...enqueue, idempotencyKey: null }, 'idempotencyKey'],
    ['jobs.enqueue', { ...enqueue, context: null }, 'context'],
    ['jobs.enqueue', { ...enqueue, priority: null }, 'priority'],
    ['jobs.enqueue', { ...enqueue, tags: null }, 'tags'],
    ['jobs.enqueueBatch', { jobs: [{ ...enqueue, context: null }] }, 'jobs[0].context'],
    ['jobs.list', { cursor: null }, 'cursor'],
    ['jobs.list', { queue: null }, 'queue'],
    ['jobs.fail', { id: '00000000-0000-4000-8000-000000000000', workerId: 'w', error: 'e', exitCode: null }, 'exitCode'],
    ['jobs.fail', { id: '00000000-0000-4000-8000-000000000000', workerId: 'w', error: 'e', stack: null }, 'stack'],
    ['queues.configure', { name: 'nulls', defaultBackoff: null }, 'defaultBackoff'],
  ];
  for (const [method, params, field] of cases) {
    const answer = await call(method, params);
    assert.equal(answer.error?.code, ErrorCode.InvalidParams, `${method} ${JSON.stringify(params)}: ${JSON.stringify(answer)}`);
    assert.equal(answer.error?.data?.field, field, `${method} ${JSON.stringify(params)}: ${answer.error?.message}`);
    assert.match(answer.error?.message ?? '', /got null|cannot be null/, answer.error?.message);
  }
  const stats = (await call('stats.get')).result as { totals: { queued: number } };
  assert.equal(stats.totals.queued, 0, 'nothing was enqueued');
});

test('where the schema gives null a meaning it keeps it: queues.configure removes the setting', async () => {
  assert.ok((await call('jobs.enqueue', enqueue)).result);
  assert.ok((await call('queues.configure', { name: 'nulls', concurrency: 3, retentionMs: 60_000 })).result);
  const cleared = await call('queues.configure', { name: 'nulls', concurrency: null, rateLimit: null, retentionMs: null, limits: null });
  assert.equal(cleared.error, undefined, JSON.stringify(cleared));
  const queue = ((await call('queues.get', { name: 'nulls' })).result as { queue: { concurrency: number | null; retentionMs: number | null } }).queue;
  assert.equal(queue.concurrency, null);
  assert.equal(queue.retentionMs, null);
});
