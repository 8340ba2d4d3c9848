/**
 * Dependencies between jobs with three real daemons (dist/daemon.js --store) on one PostgreSQL
 * database: parents completed at the same moment on three daemons make their child ready exactly
 * once, and it is claimed once, with one run, while a worker waits for it on every daemon; and a
 * daemon killed with -9 in the middle of a diamond and chain of shell jobs loses nothing: the
 * other daemons finish the graph, each step in order, run to its end once, never twice at once
 * (marker files written by the jobs themselves say so).
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import pg from 'pg';
import { processAlive, startDaemon, waitFor, type TestDaemon } from '../helpers/daemon';
import { daemonsStoppedAfter, failOnDriverWarnings, sharedPostgres } from '../helpers/postgres';

failOnDriverWarnings();

const daemons = daemonsStoppedAfter();

async function threeDaemonsOn(url: string, args: string[] = []): Promise<TestDaemon[]> {
  const started: TestDaemon[] = [];
  for (let i = 0; i < 3; i += 1) {
    const d = await startDaemon({ args: ['--store', url, ...args] });
    daemons.push(d);
    started.push(d);
  }
  return started;
}

async function query<T extends pg.QueryResultRow>(url: string, sql: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return (await client.query<T>(sql, values)).rows;
  } finally {
    await client.end();
  }
}

/** Rounds of the race, and how many run at once (each on queues of its own). */
const ROUNDS = 48;
const AT_ONCE = 4;

test('three daemons: parents completed at the same moment on three daemons make their child ready once, claimed once, with one run', async () => {
  const url = await (await sharedPostgres()).database();
  const started = await threeDaemonsOn(url);
  const clients = await Promise.all(started.map((d) => d.client()));
  const [first] = clients;
  assert.ok(first);
  const round = async (n: number): Promise<void> => {
    const parentsQueue = `parents-${n}`;
    const childQueue = `child-${n}`;
    const { results } = await first.call('jobs.enqueueBatch', {
      jobs: [
        { queue: parentsQueue, kind: 'step' },
        { queue: parentsQueue, kind: 'step' },
        { queue: parentsQueue, kind: 'step' },
        { queue: childQueue, kind: 'join', dependsOn: [{ index: 0 }, { index: 1 }, { index: 2 }] },
      ],
    });
    const child = results[3]?.job;
    assert.equal(child?.state, 'blocked');
    // Each daemon's worker holds one parent.
    const held = await Promise.all(clients.map((c, i) => c.call('jobs.claim', { workerId: `w${i}`, queues: [parentsQueue], kinds: ['step'] })));
    assert.deepEqual(
      held.map((h) => h.jobs.length),
      [1, 1, 1],
    );
    // A worker on every daemon waits for the child, then the three parents complete at once.
    const waiting = clients.map((c, i) => c.call('jobs.claim', { workerId: `joiner${i}`, queues: [childQueue], kinds: ['join'], waitMs: 1500 }, { timeoutMs: 20_000 }));
    await Promise.all(held.map((h, i) => clients[i]?.call('jobs.complete', { id: h.jobs[0]?.id ?? '', workerId: `w${i}` })));
    const taken = (await Promise.all(waiting)).flatMap((r) => r.jobs);
    assert.deepEqual(
      taken.map((j) => j.id),
      [child?.id],
      `round ${n}: the child is claimed once`,
    );
    const got = await first.call('jobs.get', { id: child?.id ?? '' });
    assert.deepEqual([got.job.state, got.job.waitingFor, got.job.attempts, got.runs.length], ['running', 0, 1, 1], `round ${n}: one run`);
  };
  for (let n = 0; n < ROUNDS; n += AT_ONCE) await Promise.all(Array.from({ length: AT_ONCE }, (_, i) => round(n + i)));
  const [counts] = await query<{ blocked: string; joins: string; once: string }>(
    url,
    `SELECT count(*) FILTER (WHERE state = 'blocked') AS blocked, count(*) FILTER (WHERE kind = 'join') AS joins,
       count(*) FILTER (WHERE kind = 'join' AND attempts = 1 AND state = 'running') AS once FROM jobs`,
  );
  assert.deepEqual([Number(counts?.blocked), Number(counts?.joins), Number(counts?.once)], [0, ROUNDS, ROUNDS]);
});

test('three daemons: one killed with -9 in the middle of a diamond and chain of shell jobs, the others finish it, each step once to its end, never twice at once', async (t) => {
  const url = await (await sharedPostgres()).database();
  const started = await threeDaemonsOn(url, ['--grace', '0', '--kill-after', '500ms']);
  const client = await (started[0] as TestDaemon).client();
  const dir = fs.mkdtempSync(path.join((started[0] as TestDaemon).dir, 'graph-'));
  const log = path.join(dir, 'graph.log');
  const overlaps = path.join(dir, 'overlaps');
  const marker = path.join(dir, 'left-started');
  const lines = (): string[][] => (fs.existsSync(log) ? fs.readFileSync(log, 'utf8').split('\n').filter(Boolean).map((l) => l.split(' ')) : []);
  t.after(() => {
    for (const [, , pid] of lines()) {
      try {
        process.kill(Number(pid), 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
  });
  // Each run first checks that no earlier run of its step is still alive (a zombie has ended),
  // then records its start, works, and records its end.
  const step = (name: string, work: string): string =>
    `for p in $(cat ${dir}/${name}.pids 2>/dev/null); do s=$(sed 's/.*) //' /proc/$p/stat 2>/dev/null | cut -c1); if [ -n "$s" ] && [ "$s" != Z ]; then echo "${name} $p" >> ${overlaps}; fi; done; ` +
    `echo $$ >> ${dir}/${name}.pids; echo "start ${name} $$" >> ${log}; ${work}; echo "end ${name} $$" >> ${log}`;
  const names = ['top', 'left', 'right', 'join', 'c1', 'c2', 'c3'];
  // The left side's first run waits long enough to be caught by the kill; its rerun does not.
  const work = (name: string): string => (name === 'left' ? `if [ -e ${marker} ]; then sleep 0.2; else touch ${marker}; sleep 120; fi` : 'sleep 0.3');
  const dependsOn: Record<string, { index: number }[]> = { top: [], left: [{ index: 0 }], right: [{ index: 0 }], join: [{ index: 1 }, { index: 2 }], c1: [{ index: 3 }], c2: [{ index: 4 }], c3: [{ index: 5 }] };
  const edges: [string, string][] = [];
  for (const name of names) for (const d of dependsOn[name] ?? []) edges.push([names[d.index] ?? '', name]);
  const { results } = await client.call('jobs.enqueueBatch', {
    jobs: names.map((name) => ({ queue: 'graph', kind: 'shell', timeoutMs: 600_000, payload: { command: step(name, work(name)) }, dependsOn: dependsOn[name] ?? [] })),
  });
  const ids = results.map((r) => r.job.id);
  const leftId = ids[1] ?? '';
  await waitFor('the left side of the diamond to start', () => lines().some(([what, name]) => what === 'start' && name === 'left'), 30_000);
  // The right side ends quickly: once its end is recorded, the left side is the graph's one
  // running step, and the kill interrupts it alone.
  await waitFor('the right side to complete', async () => (await client.call('jobs.get', { id: ids[2] ?? '' })).job.state === 'completed', 30_000);
  const [owner] = await query<{ pid: number }>(url, `SELECT d.pid FROM jobs j JOIN daemons d ON d.executor_id = j.worker_id WHERE j.id = $1 AND j.state = 'running'`, [leftId]);
  const victim = started.find((d) => d.pid === Number(owner?.pid));
  assert.ok(victim, 'the daemon running the left side is one of the three');
  const firstRun = lines().find(([what, name]) => what === 'start' && name === 'left')?.[2];
  await victim.kill();
  const killed = performance.now();
  const survivor = started.find((d) => d !== victim) as TestDaemon;
  const onSurvivor = await survivor.client();
  await waitFor(
    'the other daemons to finish the graph',
    async () => (await onSurvivor.call('jobs.get', { id: ids[ids.length - 1] ?? '' })).job.state === 'completed',
    120_000,
  );
  console.log(`the graph finished ${Math.round(performance.now() - killed)} ms after the daemon running its left side was killed`);
  const done = lines();
  for (const name of names) {
    assert.equal(done.filter(([what, n]) => what === 'end' && n === name).length, 1, `${name} ran to its end once`);
    assert.equal((await onSurvivor.call('jobs.get', { id: ids[names.indexOf(name)] ?? '' })).job.state, 'completed', `${name} completed`);
  }
  for (const [before, later] of edges) {
    const end = done.findIndex(([what, n]) => what === 'end' && n === before);
    const start = done.findIndex(([what, n]) => what === 'start' && n === later);
    assert.ok(end >= 0 && end < start, `${later} started only after ${before} ended`);
  }
  assert.equal(fs.existsSync(overlaps) ? fs.readFileSync(overlaps, 'utf8') : '', '', 'no step ran twice at once');
  assert.equal(done.filter(([what, n]) => what === 'start' && n === 'left').length, 2, 'the left side ran again on another daemon');
  assert.ok(firstRun !== undefined && !processAlive(Number(firstRun)), 'the killed daemon\'s run of the left side is gone');
  assert.equal(done.filter(([what, n, pid]) => what === 'end' && n === 'left' && pid === firstRun).length, 0, 'that run never reached its end');
});
