/**
 * The daemon's metrics against a real engine on a real SQLite file, with the engine's clock
 * injected: which job changes count as an enqueue, a claim, a failure or a death (an update, a
 * retry by hand or a progress report must not), the exact seconds the histograms observe, and
 * store errors counted by operation while refusals are not.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { MetricObjectWithValues, MetricValue } from 'prom-client';
import { DaemonMetrics } from '../../daemon/metrics/metrics';
import { ErrorCode, type Stats } from '../../shared/protocol';
import { makeEngine, thrown } from './helpers/engine';

type Metric = MetricObjectWithValues<MetricValue<string>>;

/** The value of `name` whose labels are exactly `labels` plus the daemon's name; 0 when absent. */
function valueOf(metrics: Metric[], name: string, labels: Record<string, string | number> = {}): number {
  const want = { ...labels, daemon: 'unit' };
  // A histogram's values name their series (`_bucket`, `_sum`, `_count`); other metrics' do not.
  const samples = metrics.flatMap((m) => m.values.map((v) => ({ ...v, metricName: 'metricName' in v && typeof v.metricName === 'string' ? v.metricName : m.name })));
  const match = samples.filter(
    (s) => s.metricName === name && Object.keys(s.labels).length === Object.keys(want).length && Object.entries(want).every(([k, v]) => s.labels[k] === v),
  );
  assert.ok(match.length <= 1, `one ${name} sample for ${JSON.stringify(labels)}`);
  return match[0]?.value ?? 0;
}

test('enqueues, claims, failures and deaths are counted once each, with the seconds the injected clock gives', async (t) => {
  const { engine, clock } = makeEngine(t);
  const metrics = new DaemonMetrics('unit');
  metrics.setSources({ stats: () => engine.stats(), clients: () => 0, workers: () => 0 });
  const unsubscribe = engine.subscribe({ jobChanged: (change, job) => metrics.jobChanged(change, job) });
  t.after(unsubscribe);
  const labels = { queue: 'q', kind: 'k' };

  // Due 500 ms after its enqueue, claimed 2.5 s after it was due, run for 3 s.
  const { job } = await engine.enqueue({ queue: 'q', kind: 'k', delayMs: 500, maxAttempts: 2, backoff: { strategy: 'fixed', baseMs: 1000, jitter: 0 } });
  clock.advance(100);
  await engine.update({ id: job.id, priority: 5 });
  clock.advance(2900);
  const [claimed] = await engine.claim({ workerId: 'w', queues: ['q'] });
  assert.equal(claimed.id, job.id);
  clock.advance(1000);
  await engine.progress({ id: job.id, workerId: 'w', percent: 50 });
  clock.advance(2000);
  await engine.fail({ id: job.id, workerId: 'w', error: 'first' });
  // Its backoff's second, then claimed at once and failing 250 ms later: dead.
  clock.advance(1000);
  await engine.claim({ workerId: 'w', queues: ['q'] });
  clock.advance(250);
  await engine.fail({ id: job.id, workerId: 'w', error: 'second' });
  // A retry by hand is no enqueue; its run completes after 40 ms.
  await engine.retry(job.id);
  await engine.claim({ workerId: 'w', queues: ['q'] });
  clock.advance(40);
  await engine.complete({ id: job.id, workerId: 'w' });

  const m = await metrics.registry.getMetricsAsJSON();
  assert.equal(valueOf(m, 'spool_jobs_enqueued_total', labels), 1, 'the update and the retry are no enqueues');
  assert.equal(valueOf(m, 'spool_jobs_failed_total', labels), 2);
  assert.equal(valueOf(m, 'spool_jobs_dead_total', labels), 1);
  assert.equal(valueOf(m, 'spool_jobs_completed_total', labels), 1);
  assert.equal(valueOf(m, 'spool_job_claim_to_start_seconds_count', labels), 3, 'the progress report is no claim');
  assert.equal(valueOf(m, 'spool_job_claim_to_start_seconds_sum', labels), 2.5, 'from the due time: 2.5 s, then 0 twice');
  assert.equal(valueOf(m, 'spool_job_run_duration_seconds_sum', { ...labels, outcome: 'retrying' }), 3);
  assert.equal(valueOf(m, 'spool_job_run_duration_seconds_sum', { ...labels, outcome: 'dead' }), 0.25);
  assert.equal(valueOf(m, 'spool_job_run_duration_seconds_sum', { ...labels, outcome: 'completed' }), 0.04);
  assert.equal(valueOf(m, 'spool_job_run_duration_seconds_bucket', { ...labels, outcome: 'retrying', le: 2.5 }), 0);
  assert.equal(valueOf(m, 'spool_job_run_duration_seconds_bucket', { ...labels, outcome: 'retrying', le: 5 }), 1);
  assert.equal(valueOf(m, 'spool_jobs', { queue: 'q', state: 'completed' }), 1, 'the counts come from the store');
});

test('store operations that fail are counted by operation; refusals are not', async (t) => {
  const { engine } = makeEngine(t);
  const metrics = new DaemonMetrics('unit');
  // The counts as they were before the store closes: the scrape below reads them.
  const before = await engine.stats();
  metrics.setSources({ stats: async () => before, clients: () => 0, workers: () => 0 });
  const watched = metrics.watchStore(engine);
  const refusal = await thrown(() => watched.getJob('0193aaaa-0000-7000-8000-000000000000'));
  assert.equal((refusal as { code?: number }).code, ErrorCode.JobNotFound);
  await watched.close();
  await assert.rejects(() => watched.stats());
  await assert.rejects(() => watched.stats());
  const m = await metrics.registry.getMetricsAsJSON();
  assert.equal(valueOf(m, 'spool_store_errors_total', { operation: 'stats' }), 2);
  assert.equal(valueOf(m, 'spool_store_errors_total', { operation: 'getJob' }), 0);
});

test('two daemons in one process keep their figures apart', async () => {
  const a = new DaemonMetrics('a');
  const b = new DaemonMetrics('b');
  const none: Stats = {
    queues: [],
    totals: { blocked: 0, queued: 0, running: 0, retrying: 0, held: 0, completed: 0, dead: 0, cancelled: 0 },
    completedLastMinute: 0,
    failedLastMinute: 0,
    completedLastHour: 0,
    failedLastHour: 0,
    at: 0,
  };
  a.setSources({ stats: async () => none, clients: () => 3, workers: () => 1 });
  b.setSources({ stats: async () => none, clients: () => 7, workers: () => 2 });
  const clients = async (metrics: DaemonMetrics) => (await metrics.registry.getMetricsAsJSON()).find((m) => m.name === 'spool_connected_clients')?.values;
  assert.deepEqual(await clients(a), [{ value: 3, labels: { daemon: 'a' } }]);
  assert.deepEqual(await clients(b), [{ value: 7, labels: { daemon: 'b' } }]);
});
