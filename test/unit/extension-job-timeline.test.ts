/**
 * The job page's timeline (extension/views/jobPage/timeline.ts): the waterfall of a job's runs —
 * the wait before each, each run's time and outcome, the wait of a job waiting now — its layout
 * as percentages of the job's time, the ticking words of a running run, and the history table.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Job, JobRun } from '../../shared/protocol/types';
import { renderHistory, renderWaterfall, rowText, timelineTimes, waterfall } from '../../extension/views/jobPage/timeline';

const T0 = 1_800_000_000_000;
const HOSTILE = '<script>alert(1)</script>';

function run(n: number, startedAt: number, finishedAt: number | null, outcome: JobRun['outcome'], attempt = n): JobRun {
  return { jobId: 'j', run: n, attempt, workerId: 'w', startedAt, finishedAt, outcome, error: outcome === 'failed' ? 'exit code 1' : null, stack: null, exitCode: null, httpStatus: null, durationMs: finishedAt === null ? null : finishedAt - startedAt };
}

function job(state: Job['state'], runAt = T0): Pick<Job, 'createdAt' | 'state' | 'runAt'> {
  return { createdAt: T0, state, runAt };
}

test('failed twice then succeeded: three rows, the first wait in the queue, the next two backoff, the outcomes in order', () => {
  const runs = [run(1, T0 + 1000, T0 + 3000, 'failed'), run(2, T0 + 5000, T0 + 6000, 'failed'), run(3, T0 + 10_000, T0 + 12_000, 'completed')];
  const w = waterfall(job('completed'), runs, T0 + 60_000);
  assert.equal(w.from, T0);
  assert.equal(w.to, T0 + 12_000, 'the time drawn ends with the last run, not now');
  assert.deepEqual(
    w.rows.map((r) => [r.run, r.wait?.kind, r.wait ? r.wait.to - r.wait.from : null, r.span?.outcome, r.span ? r.span.to - r.span.from : null]),
    [
      [1, 'queued', 1000, 'failed', 2000],
      [2, 'backoff', 2000, 'failed', 1000],
      [3, 'backoff', 4000, 'completed', 2000],
    ],
  );
  assert.deepEqual(w.rows.map(rowText), ['waited in the queue 1s · ran 2s, failed', 'backoff and queue 2s · ran 1s, failed', 'backoff and queue 4s · ran 2s, completed']);
  const html = renderWaterfall(w);
  // Run 2's wait starts at 3s of 12s: 25%, and lasts 2s: 16.67%.
  assert.match(html, /data-run="2" data-outcome="failed".*?<rect class="wait wait-backoff" x="25%" y="4" width="16.67%"/);
  assert.match(html, /<rect class="run outcome-completed" x="83.33%" y="2" width="16.67%"/);
  assert.equal((html.match(/class="wf-row"/g) ?? []).length, 3);
});

test('a running run ends now and its words tick; a job waiting after a failure has a row for the wait so far', () => {
  const running = waterfall(job('running'), [run(1, T0 + 2000, null, 'running')], T0 + 7000);
  assert.deepEqual(running.rows[0]?.span, { from: T0 + 2000, to: T0 + 7000, outcome: 'running' });
  assert.match(renderWaterfall(running), /waited in the queue 2s · <span data-time="elapsed-1">running 5s<\/span>/);
  assert.deepEqual(timelineTimes([run(1, T0 + 2000, null, 'running'), run(2, T0, T0 + 1, 'failed')], T0 + 65_000), { 'elapsed-1': 'running 1m3s' });
  const waiting = waterfall(job('retrying', T0 + 30_000), [run(1, T0, T0 + 1000, 'failed')], T0 + 4000);
  assert.deepEqual(waiting.rows.at(-1), { run: null, attempt: null, wait: { from: T0 + 1000, to: T0 + 4000, kind: 'backoff' }, span: null });
  const retried = waterfall(job('queued'), [run(1, T0, T0 + 1000, 'completed')], T0 + 2000);
  assert.equal(retried.rows.at(-1)?.wait?.kind, 'retried');
});

test('a job that never ran: only its wait, and none at all for one held or blocked', () => {
  assert.deepEqual(waterfall(job('queued'), [], T0 + 5000).rows, [{ run: null, attempt: null, wait: { from: T0, to: T0 + 5000, kind: 'queued' }, span: null }]);
  assert.deepEqual(waterfall(job('held'), [], T0 + 5000).rows, []);
  assert.equal(renderWaterfall(waterfall(job('held'), [], T0 + 5000)), '');
});

test('the history table: oldest first, cause and who escaped; a daemon without it is said so', () => {
  const html = renderHistory([
    { at: T0, state: 'queued', cause: 'enqueue', who: 'ana', attempt: null, detail: null },
    { at: T0 + 1, state: 'running', cause: 'claim', who: null, attempt: 1, detail: HOSTILE },
    { at: T0 + 2, state: 'queued', cause: 'retry by user', who: HOSTILE, attempt: 1, detail: null },
  ]);
  assert.ok(!html.includes('<script>'));
  assert.deepEqual(
    [...html.matchAll(/data-cause="([^"]*)"/g)].map((m) => m[1]),
    ['enqueue', 'claim', 'retry by user'],
  );
  assert.match(renderHistory(null), /keeps no history of jobs/);
  assert.match(renderHistory([]), /No changes recorded/);
});
