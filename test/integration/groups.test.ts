/**
 * Groups against real daemons: the group options through the `spool` command as a process
 * (enqueue --group, jobs --group, queue set --group-concurrency/--group-rate/--group-weights),
 * and groupConcurrency 1 holding for 3 groups × 20 jobs while workers claim at once, sampled
 * every 10 ms: on SQLite with one daemon, and on PostgreSQL across 3 daemons on one database.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import type { SpoolClient } from '../../shared/client/client';
import { startDaemon, waitFor, type TestDaemon } from '../helpers/daemon';
import { sharedPostgres } from '../helpers/postgres';
import { runCli } from './cli-run';

const daemons: TestDaemon[] = [];
after(async () => {
  await Promise.all(daemons.map((d) => d.dispose()));
});

async function started(args: string[] = []): Promise<TestDaemon> {
  const d = await startDaemon({ args });
  daemons.push(d);
  return d;
}

/** A worker: claims up to 5 at a time, holds each job 20 ms, completes it, until every job is done. */
async function work(client: SpoolClient, workerId: string, queue: string, finished: () => boolean): Promise<void> {
  while (!finished()) {
    const { jobs } = await client.call('jobs.claim', { workerId, queues: [queue], kinds: ['noop'], max: 5, waitMs: 100 }, { timeoutMs: 10_000 });
    await new Promise((resolve) => setTimeout(resolve, 20));
    await Promise.all(jobs.map((job) => client.call('jobs.complete', { id: job.id, workerId, result: null })));
  }
}

/**
 * Enqueues 3 groups × 20 jobs into a queue with groupConcurrency 1, runs a worker on each client,
 * and samples the running jobs every 10 ms until all 60 completed: never two of a group at once.
 */
async function holdsGroupConcurrency(clients: SpoolClient[], queue: string): Promise<{ samples: number; most: number }> {
  const [first] = clients;
  if (first === undefined) throw new Error('no client');
  await first.call('queues.configure', { name: queue, groupConcurrency: 1 });
  for (const group of ['customer:1', 'customer:2', 'customer:3']) {
    await first.call('jobs.enqueueBatch', { jobs: Array.from({ length: 20 }, () => ({ queue, kind: 'noop', group })) });
  }
  let done = false;
  let samples = 0;
  let most = 0;
  const violations: string[] = [];
  const sampler = (async () => {
    while (!done) {
      const running = (await first.call('jobs.list', { queue, states: ['running'], limit: 100 })).jobs;
      samples += 1;
      most = Math.max(most, running.length);
      const groups = running.map((j) => j.group);
      if (new Set(groups).size !== groups.length) violations.push(groups.join(' '));
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();
  const workers = clients.map((client, i) => work(client, `w${i}`, queue, () => done));
  await waitFor('all 60 jobs to complete', async () => ((await first.call('queues.get', { name: queue })).queue.counts.completed === 60 ? true : undefined), 60_000);
  done = true;
  await Promise.all([sampler, ...workers]);
  assert.deepEqual(violations, [], 'two running jobs of one group were seen at once');
  return { samples, most };
}

test('enqueue --group, jobs --group and queue set --group-concurrency/--group-rate/--group-weights through the CLI', async () => {
  const daemon = await started();
  const spool = (args: string[]) => runCli(args, { socketPath: daemon.socketPath });
  const set = await spool(['queue', 'exports', 'set', '--group-concurrency', '2', '--group-rate', '5/s', '--group-weights', 'customer:1=3']);
  assert.equal(set.code, 0, set.stderr);
  assert.match(set.stdout, /^group concurrency: +2$/m);
  assert.match(set.stdout, /^group rate: +5\/s burst 5$/m);
  assert.match(set.stdout, /^group weights: +customer:1=3$/m);
  const enqueued = await spool(['enqueue', 'exports', '--kind', 'export', '--group', 'customer:42']);
  assert.equal(enqueued.code, 0, enqueued.stderr);
  const id = enqueued.stdout.trim();
  assert.match((await spool(['job', id])).stdout, /^group: +customer:42$/m);
  await spool(['enqueue', 'exports', '--kind', 'export', '--group', 'customer:7']);
  const listed = await spool(['jobs', '--group', 'customer:42', '--json']);
  assert.deepEqual((JSON.parse(listed.stdout) as { jobs: { id: string }[] }).jobs.map((j) => j.id), [id]);
  const dry = await spool(['hold', '--group', 'customer:42', '--dry-run']);
  assert.equal(dry.code, 0, dry.stderr);
  assert.match(dry.stdout, /^Would hold 1 job in 1 queue; nothing was changed\.$/m);
  const held = await spool(['hold', '--queue', 'exports', '--group', 'customer:42']);
  assert.equal(held.code, 0, held.stderr);
  assert.match(held.stdout, /^Held 1 job\.$/m);
  assert.equal((JSON.parse((await spool(['job', id, '--json'])).stdout) as { job: { state: string } }).job.state, 'held');
  const bad = await spool(['enqueue', 'exports', '--kind', 'export', '--group', 'customer 42']);
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /--group must be 1 to 128 characters of letters, digits/);
  const badWeights = await spool(['queue', 'exports', 'set', '--group-weights', 'customer:1']);
  assert.equal(badWeights.code, 1);
  assert.match(badWeights.stderr, /--group-weights: "customer:1" is not group=weight/);
  const removed = await spool(['queue', 'exports', 'set', '--group-concurrency', 'none', '--group-rate', 'off', '--group-weights', 'none']);
  assert.equal(removed.code, 0, removed.stderr);
  assert.match(removed.stdout, /^group concurrency: +no limit$/m);
  assert.match(removed.stdout, /^group weights: +none \(round-robin\)$/m);
});

test('SQLite, one daemon: 3 groups × 20 jobs with groupConcurrency 1 never run two of a group at once', async () => {
  const daemon = await started();
  const clients = [await daemon.client(), await daemon.client(), await daemon.client()];
  const { samples } = await holdsGroupConcurrency(clients, 'g-sqlite');
  assert.ok(samples > 5, `sampled ${samples} times`);
});

// Also a check that a long-poll claim whose wait runs out while its claim is in flight gets the
// jobs that claim took: answered with none, they stayed running until their lease ran out.
test('PostgreSQL, 3 daemons: 3 groups × 20 jobs with groupConcurrency 1 never run two of a group at once', async () => {
  const url = await (await sharedPostgres()).database();
  const three = [await started(['--store', url]), await started(['--store', url]), await started(['--store', url])];
  const clients = await Promise.all(three.map((d) => d.client()));
  const { samples } = await holdsGroupConcurrency(clients, 'g-postgres');
  assert.ok(samples > 5, `sampled ${samples} times`);
});

/**
 * The token bucket per group in real time: in every window of every group's start times, at most
 * burst + 5/s × the window's length started (plus one for the daemon's millisecond timestamps),
 * and the machine's load may slow a group to half its rate at most (the lower bound's tolerance).
 */
test('SQLite, one daemon: groupRate 5/s gives each of 3 groups 5 jobs per second at once, burst 5, counted over several seconds of real time', async () => {
  const daemon = await started();
  const spool = (args: string[]) => runCli(args, { socketPath: daemon.socketPath });
  const set = await spool(['queue', 'rated', 'set', '--group-rate', '5/s']);
  assert.equal(set.code, 0, set.stderr);
  assert.match(set.stdout, /^group rate: +5\/s burst 5$/m);
  const client = await daemon.client();
  const groups = ['customer:1', 'customer:2', 'customer:3'];
  const perGroup = 25;
  for (const group of groups) await client.call('jobs.enqueueBatch', { jobs: Array.from({ length: perGroup }, () => ({ queue: 'rated', kind: 'noop', group })) });
  const starts = new Map<string, number[]>(groups.map((g) => [g, []]));
  let done = 0;
  // One worker, claiming as much as it may: the bucket alone paces the starts.
  await waitFor(
    'every job to start',
    async () => {
      const { jobs } = await client.call('jobs.claim', { workerId: 'w', queues: ['rated'], kinds: ['noop'], max: 100, waitMs: 500 }, { timeoutMs: 10_000 });
      for (const job of jobs) starts.get(job.group ?? '')?.push(job.startedAt ?? NaN);
      await Promise.all(jobs.map((job) => client.call('jobs.complete', { id: job.id, workerId: 'w', result: null })));
      done += jobs.length;
      return done === groups.length * perGroup ? true : undefined;
    },
    60_000,
  );
  for (const [group, times] of starts) {
    times.sort((a, b) => a - b);
    assert.equal(times.length, perGroup, group);
    for (let i = 0; i < times.length; i++) {
      for (let j = i; j < times.length; j++) {
        const seconds = ((times[j] ?? 0) - (times[i] ?? 0)) / 1000;
        assert.ok(j - i + 1 <= 5 + 5 * seconds + 1, `${group}: ${j - i + 1} jobs started within ${seconds} s, more than burst 5 + 5/s`);
      }
    }
    // 25 jobs: 5 at once, then 20 at 5/s: 4 s; under load at most twice that.
    const span = ((times.at(-1) ?? 0) - (times[0] ?? 0)) / 1000;
    assert.ok(span >= 4 - 0.25, `${group}: its 25 jobs started within ${span} s, faster than 5/s`);
    assert.ok(span <= 8, `${group}: its 25 jobs took ${span} s to start, slower than half of 5/s`);
  }
  // The groups ran side by side, not one after another: each started its first job at once.
  const firsts = groups.map((g) => starts.get(g)?.[0] ?? NaN);
  assert.ok(Math.max(...firsts) - Math.min(...firsts) < 2000, `first starts ${firsts.join(', ')}`);
});
