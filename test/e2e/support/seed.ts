/**
 * Puts a known set of queues, jobs and schedules into a test daemon, the way real clients would:
 * over the socket. Jobs of kind `report` are never run by the daemon itself (only remote
 * workers claim custom kinds), so they stay where the seed puts them.
 */
import type { SpoolClient } from '../../../shared/client/client';
import type { EnqueueParams } from '../../../shared/protocol';
import type { Job } from '../../../shared/protocol/types';
import { waitFor } from './wait';

export const SEED_WORKER = 'e2e-seed-worker';

/** Enqueue `count` jobs of one queue in batches of 1000 (the protocol's batch limit). */
export async function enqueueMany(client: SpoolClient, count: number, make: (i: number) => EnqueueParams): Promise<void> {
  for (let start = 0; start < count; start += 1000) {
    const jobs: EnqueueParams[] = [];
    for (let i = start; i < Math.min(count, start + 1000); i++) jobs.push(make(i));
    await client.call('jobs.enqueueBatch', { jobs }, { timeoutMs: 120_000 });
  }
}

/** Make jobs dead the way a worker does: claim them and fail them permanently. */
export async function killJobs(client: SpoolClient, queue: string, kind: string, count: number, error: string): Promise<Job[]> {
  await client.call('workers.register', { workerId: SEED_WORKER, name: 'e2e seed worker', queues: [queue], kinds: [kind] });
  const dead: Job[] = [];
  while (dead.length < count) {
    const { jobs } = await client.call('jobs.claim', { workerId: SEED_WORKER, queues: [queue], kinds: [kind], max: count - dead.length });
    if (jobs.length === 0) throw new Error(`Seeding: no ${kind} job left in ${queue} to fail`);
    for (const job of jobs) dead.push((await client.call('jobs.fail', { id: job.id, workerId: SEED_WORKER, error, permanent: true })).job);
  }
  return dead;
}

export interface Seeded {
  dead: Job[];
  running: Job;
}

/**
 * Queue `reports`: 2 dead `report` jobs (failed permanently by a worker), 3 queued `report`
 * jobs, 1 delayed by an hour, 1 completed shell job, 1 running shell job (`sleep 600`).
 * Schedule `nightly` (03:00 every day) into `reports`.
 */
export async function seedReports(client: SpoolClient): Promise<Seeded> {
  await enqueueMany(client, 2, (i) => ({ queue: 'reports', kind: 'report', payload: { month: `2026-0${i + 1}`, doomed: true } }));
  const dead = await killJobs(client, 'reports', 'report', 2, 'the report template is missing');
  await enqueueMany(client, 3, (i) => ({ queue: 'reports', kind: 'report', payload: { month: `2026-1${i}` } }));
  await client.call('jobs.enqueue', { queue: 'reports', kind: 'report', payload: { month: 'later' }, delayMs: 3_600_000 });
  const done = await client.call('jobs.enqueue', { queue: 'reports', kind: 'shell', payload: { command: 'echo finished' } });
  const running = await client.call('jobs.enqueue', { queue: 'reports', kind: 'shell', payload: { command: 'sleep 600' } });
  await waitFor('the seeded shell jobs to complete and to run', async () => {
    const a = await client.call('jobs.get', { id: done.job.id });
    const b = await client.call('jobs.get', { id: running.job.id });
    return a.job.state === 'completed' && b.job.state === 'running';
  });
  await client.call('schedules.create', { name: 'nightly', cron: '0 3 * * *', queue: 'reports', job: { kind: 'shell', payload: { command: 'echo nightly' } } });
  return { dead, running: (await client.call('jobs.get', { id: running.job.id })).job };
}

/**
 * One job with a long history, made the way a remote worker makes it: `runs` claims, each
 * writing `linesPerRun` output lines and failing with exit code 1, the last leaving it dead. Its
 * backoff is 1 ms, so each attempt is due again at once.
 */
export async function seedJobHistory(client: SpoolClient, params: { queue: string; kind: string; payload: unknown; runs: number; linesPerRun: number }): Promise<Job> {
  const { queue, kind, runs, linesPerRun } = params;
  await client.call('workers.register', { workerId: SEED_WORKER, name: 'e2e seed worker', queues: [queue], kinds: [kind] });
  const { job } = await client.call('jobs.enqueue', { queue, kind, payload: params.payload, maxAttempts: runs, backoff: { strategy: 'fixed', baseMs: 1, jitter: 0 } });
  for (let run = 1; run <= runs; run++) {
    // A job due again after its backoff wakes no waiting claim, so claims are polled.
    await waitFor(`attempt ${run} of job ${job.id} to be claimed`, async () => (await client.call('jobs.claim', { workerId: SEED_WORKER, queues: [queue], kinds: [kind] })).jobs[0]?.id === job.id, { intervalMs: 5 });
    for (let start = 0; start < linesPerRun; start += 1000) {
      const lines = Array.from({ length: Math.min(1000, linesPerRun - start) }, (_, i) => `run ${run} line ${start + i + 1}: checking suite ${(start + i) % 37}`);
      await client.call('jobs.log', { id: job.id, workerId: SEED_WORKER, lines, stream: 'stdout' });
    }
    await client.call('jobs.fail', { id: job.id, workerId: SEED_WORKER, error: `suite ${run} failed`, stack: `Error: suite ${run} failed\n    at runSuite (suite.js:${run}:1)`, exitCode: 1 });
  }
  return (await client.call('jobs.get', { id: job.id })).job;
}
