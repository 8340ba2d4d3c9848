/**
 * Wakeups and job events across daemons on PostgreSQL: two engines (two stores, two pools, as
 * two daemons would have) on one database. What one commits reaches the other through its
 * notice (LISTEN/NOTIFY) or, in poll-only mode, through polling: the wake hook fires with the
 * queue, and job changes are read back and delivered as remote changes while the other engine
 * wants them, and not otherwise. An engine ignores its own notices; after the server restarts
 * the listener connects again and wakeups flow again.
 */
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { Engine, type ChangeOrigin, type EngineListener, type JobChange } from '../../daemon/engine';
import { DaemonMetrics } from '../../daemon/metrics/metrics';
import { PostgresStore, postgresStore, type PostgresOptions } from '../../daemon/storage/postgres';
import type { Job } from '../../shared/protocol/types';
import { sharedPostgres } from '../helpers/postgres';
import { waitFor } from '../helpers/wait';

/** What one engine heard from the other, through the hooks a daemon sets. */
interface Heard {
  /** Queues woken (null: every queue), in order. */
  wakes: Array<string | null>;
  /** Job changes, with where they were made. */
  changes: Array<{ change: JobChange; origin: ChangeOrigin }>;
  queues: string[];
  /** Whether the listener wants other daemons' job changes (what a daemon's subscribers decide). */
  wants: boolean;
}

interface Daemonish {
  engine: Engine;
  store: PostgresStore;
  heard: Heard;
}

/** The long due-job check keeps it out of tests of what LISTEN alone does. */
const LISTEN_ONLY: Partial<PostgresOptions> = { fallbackMs: 600_000 };

async function open(t: TestContext, url: string, options: Partial<PostgresOptions> = LISTEN_ONLY): Promise<Daemonish> {
  let store: PostgresStore | null = null;
  const engine = new Engine({
    store: (changes, now) => {
      const opened = postgresStore({ url, poolSize: 4, ...options })(changes, now);
      if (opened instanceof PostgresStore) store = opened;
      return opened;
    },
  });
  t.after(() => engine.close());
  await engine.open();
  if (store === null) throw new Error('The engine did not open a PostgreSQL store');
  const heard: Heard = { wakes: [], changes: [], queues: [], wants: false };
  const listener: EngineListener = {
    wake: (queue) => heard.wakes.push(queue),
    wantsRemoteJobs: () => heard.wants,
    jobChanged: (change, _job, origin) => heard.changes.push({ change, origin }),
    queueChanged: (name) => heard.queues.push(name),
  };
  t.after(engine.subscribe(listener));
  return { engine, store, heard };
}

async function twoDaemons(t: TestContext, second: Partial<PostgresOptions> = LISTEN_ONLY): Promise<[Daemonish, Daemonish]> {
  const url = await (await sharedPostgres()).database(t);
  const a = await open(t, url);
  const b = await open(t, url, second);
  if (!b.store.options.poll) await waitFor('both listeners to listen', () => a.store.feed.listening && b.store.feed.listening, 10_000);
  return [a, b];
}

function remote(heard: Heard, id: string, state?: string): Array<{ change: JobChange; origin: ChangeOrigin }> {
  return heard.changes.filter((c) => c.origin === 'remote' && c.change.id === id && (state === undefined || c.change.state === state));
}

/**
 * A barrier: `from` enqueues into a fresh queue and `to` waits to be woken for it. Notices reach
 * a listener in commit order, so once it arrives every earlier notice from `from` has been acted on.
 */
async function barrier(from: Daemonish, to: Daemonish, name: string): Promise<void> {
  await from.engine.enqueue({ queue: name, kind: 'barrier' });
  await waitFor(`the wakeup for ${name}`, () => to.heard.wakes.includes(name), 5000);
}

async function runToCompletion(engine: Engine, queue: string, workerId: string): Promise<Job> {
  const { id } = (await engine.enqueue({ queue, kind: 'k' })).job;
  const [claimed] = await engine.claim({ workerId, queues: [queue], max: 1 });
  assert.equal(claimed?.id, id);
  return engine.complete({ id, workerId, result: null });
}

test('an enqueue on one daemon wakes the other for its queue at once, and not itself', async (t) => {
  const [a, b] = await twoDaemons(t);
  const started = performance.now();
  await a.engine.enqueue({ queue: 'builds', kind: 'k' });
  await waitFor('daemon B to be woken for builds', () => b.heard.wakes.includes('builds'), 2000);
  const ms = performance.now() - started;
  assert.ok(ms < 1000, `woken within a second of the enqueue (took ${Math.round(ms)} ms)`);
  await barrier(b, a, 'after-builds');
  assert.ok(!a.heard.wakes.includes('builds'), 'daemon A ignored its own notice');
});

test('a delayed job wakes the other daemon for the time it becomes due', async (t) => {
  const [a, b] = await twoDaemons(t);
  const wakes: Array<{ queue: string | null; dueAt: number | undefined }> = [];
  t.after(b.engine.subscribe({ wake: (queue, dueAt) => wakes.push({ queue, dueAt }) }));
  const { job } = await a.engine.enqueue({ queue: 'later', kind: 'k', delayMs: 60_000 });
  await waitFor('daemon B to be told when the job is due', () => wakes.find((w) => w.queue === 'later'), 2000);
  assert.deepEqual(
    wakes.filter((w) => w.queue === 'later'),
    [{ queue: 'later', dueAt: job.runAt }],
  );
});

test("a job's changes on one daemon reach the other's listeners while they want them, marked remote", async (t) => {
  const [a, b] = await twoDaemons(t);
  a.heard.wants = true;
  b.heard.wants = true;
  const done = await runToCompletion(a.engine, 'work', 'wa');
  await waitFor('daemon B to hear the job completed', () => remote(b.heard, done.id, 'completed').length > 0, 5000);
  const local = a.heard.changes.filter((c) => c.change.id === done.id);
  assert.deepEqual(
    local.map((c) => [c.change.state, c.origin]),
    [
      ['queued', 'local'],
      ['running', 'local'],
      ['completed', 'local'],
    ],
    'daemon A heard its own changes once each, as local',
  );
  const completed = remote(b.heard, done.id, 'completed');
  assert.equal(completed.length, 1, 'the completed version is delivered once, however many notices led to reading it');
  assert.equal(completed[0]?.change.at, done.updatedAt, 'stamped with when it happened on daemon A');
  await barrier(b, a, 'after-work');
  assert.ok(!b.heard.changes.some((c) => c.origin === 'local' && c.change.id === done.id), 'daemon B never took the change for its own');
  assert.equal(a.heard.changes.filter((c) => c.origin === 'remote' && c.change.id === done.id).length, 0, 'daemon A did not read back its own changes');
});

test('nothing is read back while nobody on the other daemon wants job events, yet its claims are still woken', async (t) => {
  const [a, b] = await twoDaemons(t);
  const done = await runToCompletion(a.engine, 'quiet', 'wa');
  await barrier(a, b, 'after-quiet');
  assert.ok(b.heard.wakes.includes('quiet'), 'woken for the queue');
  assert.deepEqual(remote(b.heard, done.id), [], 'no job change was read back');
});

test("a job changed on one daemon is not counted again by the other daemon's metrics", async (t) => {
  const [a, b] = await twoDaemons(t);
  b.heard.wants = true;
  const metrics = new DaemonMetrics('b');
  t.after(b.engine.subscribe({ jobChanged: (change, job, origin) => metrics.jobChanged(change, job, origin) }));
  const done = await runToCompletion(a.engine, 'counted', 'wa');
  await waitFor('daemon B to hear the job completed', () => remote(b.heard, done.id, 'completed').length > 0, 5000);
  const values = async (name: string): Promise<number> => {
    const metric = metrics.registry.getSingleMetric(name);
    if (metric === undefined) throw new Error(`no metric ${name}`);
    return (await metric.get()).values.reduce((sum, v) => sum + v.value, 0);
  };
  assert.equal(await values('spool_jobs_enqueued_total'), 0);
  assert.equal(await values('spool_jobs_completed_total'), 0);
});

test('a batch too large to name every job in one notice still reaches the other daemon, job by job', async (t) => {
  const [a, b] = await twoDaemons(t);
  b.heard.wants = true;
  const { results } = await a.engine.enqueueBatch({ jobs: Array.from({ length: 400 }, () => ({ queue: 'many', kind: 'k' })) });
  await waitFor('daemon B to hear of all 400 jobs', () => results.every((r) => remote(b.heard, r.job.id, 'queued').length === 1), 5000);
  assert.ok(b.heard.wakes.includes('many'));
});

test('a queue created on one daemon is announced on the other', async (t) => {
  const [a, b] = await twoDaemons(t);
  await a.engine.enqueue({ queue: 'fresh', kind: 'k' });
  await waitFor('daemon B to hear of the new queue', () => b.heard.queues.includes('fresh'), 5000);
  await barrier(b, a, 'after-fresh');
  assert.deepEqual(a.heard.queues.filter((q) => q === 'fresh'), ['fresh'], 'daemon A announced it once, as its own');
});

test('after the server stops and starts again, the listener connects again and wakeups flow', async (t) => {
  const server = await sharedPostgres();
  const [a, b] = await twoDaemons(t);
  const connections = b.store.feed.connections;
  server.stopImmediate();
  await waitFor('daemon B to notice the listener is gone', () => !b.store.feed.listening, 10_000);
  await server.startAgain();
  await waitFor('daemon B to listen again', () => b.store.feed.connections > connections && b.store.feed.listening, 20_000);
  assert.ok(b.heard.wakes.includes(null), 'every queue was woken once back: notices sent meanwhile were lost');
  await waitFor('daemon A to listen again', () => a.store.feed.listening, 20_000);
  // The first statement on a pooled connection the restart broke may fail: the pool then drops it.
  await waitFor('an enqueue on daemon A', () => a.engine.enqueue({ queue: 'after-restart', kind: 'k' }).then(() => true, () => false), 20_000);
  await waitFor('daemon B to be woken for after-restart', () => b.heard.wakes.includes('after-restart'), 5000);
});

test('poll-only mode wakes the other daemon for due jobs and delivers job changes, without LISTEN', async (t) => {
  const [a, b] = await twoDaemons(t, { poll: true, pollMs: 100 });
  assert.equal(b.store.feed.listening, false, 'no listening connection in poll-only mode');
  await a.engine.enqueue({ queue: 'polled', kind: 'k' });
  await waitFor('daemon B to be woken for polled by its poll', () => b.heard.wakes.includes('polled'), 5000);
  b.heard.wants = true;
  const done = await runToCompletion(a.engine, 'polled-events', 'wa');
  await waitFor('daemon B to read the completed job in a poll', () => remote(b.heard, done.id, 'completed').length > 0, 5000);
  const own = await runToCompletion(b.engine, 'polled-own', 'wb');
  // The job in `polled` stays due, so every poll wakes it: two more wakes mean a whole poll
  // (the due check, then the read of changed jobs) ran after daemon B's own commit.
  const polls = (): number => b.heard.wakes.filter((q) => q === 'polled').length;
  const seen = polls();
  await waitFor('a whole poll after daemon B completed its own job', () => polls() >= seen + 2, 5000);
  assert.deepEqual(remote(b.heard, own.id), [], "daemon B's own changes are not delivered again as remote");
});
