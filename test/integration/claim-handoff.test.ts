/**
 * On SQLite an enqueue's waiting claims take their jobs inside the enqueue's own transaction
 * (daemon/rpc/claims.ts `claimWithin`, called by the group commit): a real daemon, real worker
 * connections parked in `jobs.claim`, and producers enqueuing singly, in pipelined bursts and
 * from several connections at once. Each job goes to exactly one worker, the oldest waiting
 * claim of its queue first, within each claim's max and kinds; waiters of other queues and for
 * jobs not yet due wait on.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Job } from '../../shared/protocol/types';
import { RawConnection, startDaemon, type TestDaemon } from '../helpers/daemon';

describe('waiting claims served inside the enqueue\'s commit (SQLite)', () => {
  let daemon: TestDaemon;
  before(async () => {
    daemon = await startDaemon();
  });
  after(() => daemon.dispose());

  type Client = Awaited<ReturnType<TestDaemon['client']>>;

  /**
   * Starts a waiting claim and returns once it is parked: one connection's lines are handled in
   * order, so once a later request on it is answered, the claim has found nothing and waits.
   */
  async function park(params: { workerId: string; queues: string[]; max?: number; kinds?: string[]; waitMs?: number }): Promise<{ client: Client; claim: Promise<{ jobs: Job[] }> }> {
    const client = await daemon.client();
    const claim = client.call('jobs.claim', { waitMs: 30_000, ...params });
    await client.call('daemon.status');
    return { client, claim };
  }

  test('one job goes to the oldest waiting claim of its queue; the next waiter and another queue\'s wait on', async () => {
    const first = await park({ workerId: 'h-first', queues: ['handoff'] });
    const second = await park({ workerId: 'h-second', queues: ['handoff'] });
    const other = await park({ workerId: 'h-other', queues: ['handoff-other'] });
    const producer = await daemon.client();

    const { job } = await producer.call('jobs.enqueue', { queue: 'handoff', kind: 'k' });
    const { jobs } = await first.claim;
    assert.deepEqual(jobs.map((j) => j.id), [job.id]);
    assert.equal(jobs[0]?.state, 'running');
    assert.equal(jobs[0]?.workerId, 'h-first');

    // The second waiter is still waiting: it takes the next job, not a copy of the first.
    const { job: next } = await producer.call('jobs.enqueue', { queue: 'handoff', kind: 'k' });
    assert.deepEqual((await second.claim).jobs.map((j) => j.id), [next.id]);
    const { job: elsewhere } = await producer.call('jobs.enqueue', { queue: 'handoff-other', kind: 'k' });
    assert.deepEqual((await other.claim).jobs.map((j) => j.id), [elsewhere.id]);

    const stored = await producer.call('jobs.get', { id: job.id });
    assert.equal(stored.job.attempts, 1);
    assert.equal(stored.runs.length, 1);
  });

  test('a batch of enqueues (one commit) fills each waiting claim up to its max and leaves the rest queued', async () => {
    const two = await park({ workerId: 'b-two', queues: ['burst'], max: 2 });
    const one = await park({ workerId: 'b-one', queues: ['burst'], max: 1 });
    // A JSON-RPC batch of five enqueues: handled in one turn, so committed as one group.
    const producer = await RawConnection.open(daemon.socketPath);
    const answers = (await producer.call(Array.from({ length: 5 }, (_, i) => ({ jsonrpc: '2.0', id: i + 1, method: 'jobs.enqueue', params: { queue: 'burst', kind: 'k', payload: i } })))) as {
      id: number;
      result: { job: Job };
    }[];
    const ids = [...answers].sort((a, b) => a.id - b.id).map((a) => a.result.job.id);
    const gotTwo = (await two.claim).jobs.map((j) => j.id);
    const gotOne = (await one.claim).jobs.map((j) => j.id);
    // Each up to its max, no job twice.
    assert.equal(gotTwo.length, 2);
    assert.equal(gotOne.length, 1);
    const claimed = new Set([...gotTwo, ...gotOne]);
    assert.equal(claimed.size, 3);
    for (const id of claimed) assert.ok(ids.includes(id));
    const observer = await daemon.client();
    const { jobs: queued } = await observer.call('jobs.list', { queue: 'burst', states: ['queued'] });
    assert.deepEqual(new Set(queued.map((j) => j.id)), new Set(ids.filter((id) => !claimed.has(id))));
    producer.close();
  });

  test('a job not yet due, or of a kind the claim does not take, leaves the claim waiting', async () => {
    const picky = await park({ workerId: 'p-picky', queues: ['picky'], kinds: ['wanted'] });
    const producer = await daemon.client();
    const { job: later } = await producer.call('jobs.enqueue', { queue: 'picky', kind: 'wanted', delayMs: 60_000 });
    const { job: unwanted } = await producer.call('jobs.enqueue', { queue: 'picky', kind: 'other' });
    const { job: wanted } = await producer.call('jobs.enqueue', { queue: 'picky', kind: 'wanted' });
    assert.deepEqual((await picky.claim).jobs.map((j) => j.id), [wanted.id]);
    assert.equal((await producer.call('jobs.get', { id: later.id })).job.state, 'queued');
    assert.equal((await producer.call('jobs.get', { id: unwanted.id })).job.state, 'queued');
  });

  test('many workers waiting and producers enqueuing at once: every job is claimed once and completed once', async () => {
    const total = 240;
    const workers = 4;
    const producers = 3;
    const seen = new Map<string, string>();
    let completed = 0;
    const work = async (w: number): Promise<void> => {
      const client = await daemon.client();
      const workerId = `stress-${w}`;
      while (completed < total) {
        const { jobs } = await client.call('jobs.claim', { workerId, queues: ['stress'], max: 1 + (w % 3), waitMs: 500 });
        for (const job of jobs) {
          assert.equal(seen.get(job.id), undefined, `job ${job.id} claimed by ${seen.get(job.id) ?? ''} and again by ${workerId}`);
          seen.set(job.id, workerId);
        }
        await Promise.all(jobs.map((job) => client.call('jobs.complete', { id: job.id, workerId })));
        completed += jobs.length;
      }
    };
    const produce = async (p: number): Promise<string[]> => {
      const client = await daemon.client();
      const ids: string[] = [];
      for (let sent = 0; sent < total / producers; ) {
        // Alternately one enqueue alone and a pipelined burst of up to 7.
        const burst = sent % 2 === 0 ? 1 : Math.min(7, Math.ceil(total / producers) - sent);
        const results = await Promise.all(Array.from({ length: burst }, () => client.call('jobs.enqueue', { queue: 'stress', kind: 'k', payload: p })));
        ids.push(...results.map((r) => r.job.id));
        sent += burst;
        // A pause, so that the workers often find the queue empty and park.
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      return ids;
    };
    const [enqueued] = await Promise.all([
      Promise.all(Array.from({ length: producers }, (_, p) => produce(p))).then((lists) => lists.flat()),
      ...Array.from({ length: workers }, (_, w) => work(w)),
    ]);
    // Producers may enqueue a few more than `total` (rounding): the workers stop at `total`.
    const observer = await daemon.client();
    const { jobs: left } = await observer.call('jobs.list', { queue: 'stress', states: ['queued'], limit: 100 });
    assert.equal(seen.size + left.length, enqueued.length, 'every job either claimed once or still queued');
    for (const id of seen.keys()) assert.equal((await observer.call('jobs.get', { id })).job.state, 'completed');
  });
});
