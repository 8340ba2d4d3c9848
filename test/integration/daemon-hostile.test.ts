/**
 * Hostile input: 10,000 malformed lines, invalid UTF-8, deep nesting, huge numbers and a 20 MiB
 * line. Each line is answered with an error (or, for the oversized line, the connection is
 * closed after one); the daemon stays up and other clients are not affected.
 */
import assert from 'node:assert/strict';
import * as net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { ErrorCode, LIMITS } from '../../shared/protocol';
import { RawConnection, startDaemon, type TestDaemon } from '../helpers/daemon';

interface ErrorReply {
  jsonrpc: '2.0';
  id: string | number | null;
  error: { code: number; message: string };
}

/** Line i of the hostile set: every one deserves exactly one error response. */
function hostileLine(i: number): Buffer {
  const id = i;
  const deep = (n: number): string => '['.repeat(n) + ']'.repeat(n);
  switch (i % 14) {
    case 0:
      return Buffer.from('{"jsonrpc":"2.0","id":' + id + ',"method":"jobs.get",');
    case 1:
      return Buffer.from('not json at all ' + i);
    case 2:
      return Buffer.from(JSON.stringify({ jsonrpc: '2.0', id, method: 'jobs.enqueue', params: { queue: 42, kind: ['x'] } }));
    case 3:
      return Buffer.from(`{"jsonrpc":"2.0","id":${id},"method":"jobs.enqueue","params":{"queue":"q","kind":"k","priority":1e400}}`);
    case 4:
      return Buffer.from(`{"jsonrpc":"2.0","id":${id},"method":"jobs.list","params":{"limit":123456789012345678901234567890}}`);
    case 5:
      return Buffer.from(`{"jsonrpc":"2.0","id":${id},"method":"jobs.enqueue","params":{"queue":"q","kind":"k","payload":${deep(5000)}}}`);
    case 6:
      return Buffer.from(deep(100_000));
    case 7:
      return Buffer.from(JSON.stringify({ jsonrpc: '2.0', id, method: `no.such.method.${i}` }));
    case 8:
      // Invalid UTF-8 inside a JSON string.
      return Buffer.concat([Buffer.from(`{"jsonrpc":"2.0","id":${id},"method":"jobs.enqueue","params":{"queue":"`), Buffer.from([0xc3, 0x28, 0xff]), Buffer.from('","kind":"k"}}')]);
    case 9:
      return Buffer.from(JSON.stringify({ jsonrpc: '2.0', id, method: 'jobs.claim', params: { workerId: 'w', waitMs: 'forever' } }));
    case 10:
      return Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: { nested: true }, method: 'daemon.status' }));
    case 11:
      return Buffer.from(JSON.stringify({ jsonrpc: '2.0', id, method: 'jobs.cancel', params: { id: 'x'.repeat(10_000) } }));
    case 12:
      return Buffer.from(JSON.stringify({ jsonrpc: '2.0', id, method: 'queues.configure', params: { name: 'q', concurrency: -5 } }));
    default:
      return Buffer.from(JSON.stringify({ jsonrpc: '2.0', id, method: 'jobs.enqueueBatch', params: { jobs: 'all of them' } }));
  }
}

describe('hostile input', () => {
  let daemon: TestDaemon;
  before(async () => {
    daemon = await startDaemon();
  });
  after(() => daemon.dispose());

  test('10,000 malformed lines each get an error; another client keeps working', async () => {
    const hostile = await RawConnection.open(daemon.socketPath);
    const bystander = await daemon.client();
    const count = 10_000;
    const chunk: Buffer[] = [];
    let answered = 0;
    let bystanderCalls = 0;
    const codes = new Map<number, number>();
    for (let i = 0; i < count; i++) {
      chunk.push(hostileLine(i), Buffer.from('\n'));
      if (chunk.length >= 400 || i === count - 1) {
        const sent = chunk.length / 2;
        await hostile.write(Buffer.concat(chunk.splice(0)));
        for (let k = 0; k < sent; k++) {
          const reply = (await hostile.next()) as ErrorReply | null;
          assert.ok(reply, `the daemon closed the connection after ${answered} answers`);
          assert.ok(reply.error, `line answered without an error: ${JSON.stringify(reply).slice(0, 200)}`);
          assert.notEqual(reply.error.code, ErrorCode.InternalError, reply.error.message);
          codes.set(reply.error.code, (codes.get(reply.error.code) ?? 0) + 1);
          answered++;
        }
        const status = await bystander.call('daemon.status');
        assert.equal(status.pid, daemon.pid);
        bystanderCalls++;
      }
    }
    assert.equal(answered, count);
    assert.ok(bystanderCalls > 10);
    for (const code of [ErrorCode.ParseError, ErrorCode.InvalidRequest, ErrorCode.InvalidParams, ErrorCode.MethodNotFound]) {
      assert.ok((codes.get(code) ?? 0) > 0, `no ${code} among ${JSON.stringify([...codes])}`);
    }
    assert.equal((await bystander.call('stats.get')).totals.queued, 0, 'nothing hostile was enqueued');
    hostile.close();
  });

  test('a client that half-closes right after its requests still gets every answer, then is closed', async () => {
    const raw = await RawConnection.open(daemon.socketPath);
    const enqueue = (id: number): string =>
      JSON.stringify({ jsonrpc: '2.0', id, method: 'jobs.enqueue', params: { queue: 'halfclosed', kind: 'k', payload: { id } } });
    const batch = JSON.stringify([{ jsonrpc: '2.0', id: 3, method: 'daemon.status' }]);
    raw.endWriting(`${enqueue(1)}\n${enqueue(2)}\n${batch}\n`);
    const answers = [await raw.next(), await raw.next(), await raw.next()];
    const ids = answers.map((a) => (Array.isArray(a) ? (a[0] as { id: number }).id : (a as { id: number }).id));
    assert.deepEqual(ids.sort(), [1, 2, 3]);
    for (const a of answers) assert.equal((Array.isArray(a) ? a[0] : a).error, undefined, JSON.stringify(a));
    assert.equal(await raw.next(), null, 'the daemon ends the connection once everything is answered');
  });

  test('a burst of 20,000 requests written at once and half-closed is answered in full, then the connection ends', async () => {
    // More lines than a connection keeps unhandled before it stops reading (8,192), handled a
    // slice per event-loop turn: none may be dropped at the half-close or while reading is paused.
    const raw = await RawConnection.open(daemon.socketPath);
    const count = 20_000;
    const lines = Array.from({ length: count }, (_, i) => JSON.stringify({ jsonrpc: '2.0', id: i, method: 'jobs.enqueue', params: { queue: 'burst', kind: 'k', payload: { i } } }));
    raw.endWriting(lines.join('\n') + '\n');
    const seen = new Set<number>();
    for (let k = 0; k < count; k++) {
      const answer = (await raw.next()) as { id: number; result?: { job: { payload: { i: number } } } } | null;
      assert.ok(answer, `the connection ended after ${k} answers`);
      assert.equal(answer.result?.job.payload.i, answer.id, JSON.stringify(answer).slice(0, 200));
      seen.add(answer.id);
    }
    assert.equal(seen.size, count);
    assert.equal(await raw.next(), null, 'the daemon ends the connection once everything is answered');
    const client = await daemon.client();
    assert.equal((await client.call('queues.get', { name: 'burst' })).queue.counts.queued, count);
    client.close();
  });

  test('a waiting claim on a half-closed connection ends at once with no jobs, and claims nothing later', async () => {
    const raw = await RawConnection.open(daemon.socketPath);
    const started = Date.now();
    raw.endWriting(
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'jobs.claim', params: { workerId: 'halfclosed-worker', queues: ['halfclosed-claims'], waitMs: 30_000 } }) + '\n',
    );
    const answer = (await raw.next()) as { id: number; result?: { jobs: unknown[] } };
    assert.deepEqual(answer.result, { jobs: [] });
    assert.ok(Date.now() - started < 20_000, 'answered long before its 30 s wait');
    assert.equal(await raw.next(), null);
    const client = await daemon.client();
    const { job } = await client.call('jobs.enqueue', { queue: 'halfclosed-claims', kind: 'k' });
    assert.equal((await client.call('jobs.get', { id: job.id })).job.state, 'queued');
    client.close();
  });

  test('a 20 MiB line gets one error and its connection is closed; the daemon stays up', async () => {
    const hostile = await RawConnection.open(daemon.socketPath);
    const big = Buffer.alloc(20 * 1024 * 1024, 0x61);
    void hostile.write(Buffer.concat([Buffer.from('{"jsonrpc":"2.0","id":1,"method":"daemon.status","params":{"x":"'), big, Buffer.from('"}}\n')]));
    const reply = (await hostile.next(60_000)) as ErrorReply;
    assert.equal(reply.error.code, ErrorCode.InvalidRequest);
    assert.match(reply.error.message, new RegExp(String(LIMITS.maxLineBytes)));
    await hostile.closed;
    const client = await daemon.client();
    assert.equal((await client.call('daemon.status')).pid, daemon.pid);
  });

  test('a line just under the limit is read whole (and refused for its content, not its size)', async () => {
    const raw = await RawConnection.open(daemon.socketPath);
    const payload = 'b'.repeat(LIMITS.maxLineBytes - 200);
    const reply = (await raw.call({ jsonrpc: '2.0', id: 9, method: 'jobs.enqueue', params: { queue: 'q', kind: 'k', payload } })) as ErrorReply;
    assert.equal(reply.id, 9);
    assert.equal(reply.error.code, ErrorCode.PayloadTooLarge);
    raw.close();
  });

  test('one answer larger than the unread-output cap (a claim of 70 jobs of 1 MB) is sent whole', async () => {
    const client = await daemon.client();
    const payload = 'x'.repeat(1_000_000);
    await Promise.all(Array.from({ length: 70 }, () => client.call('jobs.enqueue', { queue: 'big-answer', kind: 'remote', payload })));
    // A plain socket that keeps the chunks and looks for the end of the line in each new one:
    // the answer is a single line of about 70 MB.
    const socket = net.createConnection(daemon.socketPath);
    try {
      const line = await new Promise<string>((resolve, reject) => {
        const chunks: Buffer[] = [];
        socket.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          if (chunk.includes(0x0a)) resolve(Buffer.concat(chunks).toString('utf8'));
        });
        socket.once('close', () => reject(new Error('the daemon closed the connection before answering')));
        socket.once('error', reject);
        socket.write(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'jobs.claim', params: { workerId: 'big', queues: ['big-answer'], max: 70 } }) + '\n');
      });
      const reply = JSON.parse(line) as { result?: { jobs: { payload: string }[] } };
      assert.ok(reply.result, 'the claim is answered');
      assert.equal(reply.result.jobs.length, 70);
      assert.ok(reply.result.jobs.every((j) => j.payload === payload));
    } finally {
      socket.destroy();
    }
  });

  test('a client that never reads its answers is stopped from sending more than a bounded amount', async () => {
    const socket = net.createConnection(daemon.socketPath);
    try {
      await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
      const line = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'stats.get' }) + '\n';
      const chunk = Buffer.from(line.repeat(Math.floor((1024 * 1024) / line.length)));
      // A daemon that kept reading would take all of this (it is only bytes to buffer); one that
      // pauses reading stops taking it after a few MiB: the kernel's buffers and its own.
      const offered = 128 * 1024 * 1024;
      let flushed = 0;
      let stalled = false;
      while (flushed < offered) {
        const accepted = socket.write(chunk, () => (flushed += chunk.length));
        if (accepted) continue;
        const drained = await new Promise<boolean>((resolve) => {
          const timer = setTimeout(() => resolve(false), 3000);
          socket.once('drain', () => {
            clearTimeout(timer);
            resolve(true);
          });
        });
        if (!drained) {
          stalled = true;
          break;
        }
      }
      assert.ok(stalled, `the daemon read all ${offered / 1024 / 1024} MiB offered without its answers being read`);
      assert.ok(flushed < 32 * 1024 * 1024, `the daemon took ${(flushed / 1024 / 1024).toFixed(1)} MiB before it stopped reading`);
      // The daemon is fine, and serves others meanwhile.
      const client = await daemon.client();
      assert.equal((await client.call('daemon.status')).pid, daemon.pid);
    } finally {
      socket.destroy();
    }
  });

  test('a client that writes a burst before reading gets every answer once it reads', async () => {
    const raw = await RawConnection.open(daemon.socketPath);
    const line = Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'stats.get' }) + '\n');
    // Write a few MiB of requests in one go; the daemon answers them all once we read.
    const many = Buffer.concat(Array.from({ length: 20_000 }, () => line));
    await raw.write(many);
    for (let i = 0; i < 20_000; i++) {
      const reply = (await raw.next(60_000)) as { result?: unknown } | null;
      assert.ok(reply && reply.result, `reply ${i}`);
    }
    raw.close();
    const client = await daemon.client();
    assert.equal((await client.call('daemon.status')).pid, daemon.pid);
  });
});
