/**
 * The terminal drawing of a workflow run (`spool workflow show`) and the lines `spool run --wait`
 * prints as a run goes: columns by stage, matrix instances grouped, states and durations, the
 * indented form when the columns do not fit, and one line per change.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { makeColors } from '../../cli/format/color';
import { MAX_INSTANCES_SHOWN, renderRunGraph } from '../../cli/format/workflowGraph';
import { finalLine, progressLines, type SeenStates } from '../../cli/format/workflowProgress';
import { runCountsText, stepStateWord } from '../../shared/domain/present';
import type { JobState } from '../../shared/protocol/types';
import type { WorkflowRunDetail, WorkflowRunJob } from '../../shared/protocol/workflows';

const plain = makeColors(false);
const T0 = 1_000_000;

function counts(jobs: readonly WorkflowRunJob[]): Record<JobState, number> {
  const out: Record<JobState, number> = { blocked: 0, queued: 0, running: 0, retrying: 0, held: 0, completed: 0, dead: 0, cancelled: 0 };
  for (const j of jobs) out[j.state] += 1;
  return out;
}

function job(id: string, step: string, state: JobState, o: Partial<WorkflowRunJob> = {}): WorkflowRunJob {
  return { id, step, label: step, queue: 'builds', kind: 'shell', state, attempts: state === 'blocked' || state === 'queued' ? 0 : 1, maxAttempts: 1, startedAt: null, finishedAt: null, lastError: null, dependsOn: [], ...o };
}

/** The release workflow, mid-run: build done, tests under way (one failed), the rest waiting. */
function release(): WorkflowRunDetail {
  const jobs: WorkflowRunJob[] = [
    job('j-build', 'build', 'completed', { startedAt: T0, finishedAt: T0 + 12_000 }),
    job('j-linux', 'test', 'completed', { label: 'test (linux)', matrix: { target: 'linux' }, startedAt: T0 + 12_000, finishedAt: T0 + 22_000 }),
    job('j-mac', 'test', 'running', { label: 'test (mac)', matrix: { target: 'mac' }, startedAt: T0 + 12_000 }),
    job('j-win', 'test', 'dead', { label: 'test (win)', matrix: { target: 'win' }, startedAt: T0 + 12_000, finishedAt: T0 + 15_000, attempts: 3, maxAttempts: 3, lastError: 'exit code 2' }),
    job('j-package', 'package', 'blocked'),
    job('j-deploy', 'deploy', 'blocked', { queue: 'deploys', kind: 'http' }),
    job('j-cleanup', 'cleanup', 'blocked'),
  ];
  return {
    id: '0193a5b2-7c1e-7d4f-8a9b-1c2d3e4f5a6b',
    workflow: 'release',
    params: { version: '1.2' },
    state: 'running',
    counts: counts(jobs),
    total: jobs.length,
    source: 'user',
    createdAt: T0,
    endedAt: null,
    steps: [
      { name: 'build', needs: [] },
      { name: 'test', needs: [{ step: 'build', on: 'succeeded' }], matrix: { target: ['linux', 'mac', 'win'] } },
      { name: 'package', needs: [{ step: 'test', on: 'succeeded' }] },
      { name: 'deploy', needs: [{ step: 'package', on: 'succeeded' }] },
      { name: 'cleanup', needs: [{ step: 'deploy', on: 'finished' }] },
    ],
    jobs,
  };
}

test('a run is drawn in columns by stage, left to right, each step with its state and duration', () => {
  const text = renderRunGraph(release(), { colors: plain, width: 200, now: T0 + 30_000 });
  const lines = text.split('\n');
  assert.match(lines[0] ?? '', /^release {2}run 0193a5b2-7c1e-7d4f-8a9b-1c2d3e4f5a6b {2}running {2}started 30s ago, 30s so far$/);
  assert.equal(lines[1], 'params: version=1.2');
  assert.equal(lines[2], '7 jobs: 1 running, 2 succeeded, 1 failed, 3 blocked');
  const names = lines[4] ?? '';
  // The step names in one row, in stage order.
  const at = ['build', 'test ×3', 'package', 'deploy', 'cleanup'].map((n) => names.indexOf(n));
  assert.ok(at.every((i) => i >= 0), names);
  assert.deepEqual([...at].sort((a, b) => a - b), at);
  // Under each name, in its column: its state.
  const column = (step: string): string[] => {
    const start = names.indexOf(step);
    const next = at.find((i) => i > start);
    return lines.slice(5).map((l) => l.slice(start, next).trimEnd()).filter((l) => l !== '');
  };
  assert.deepEqual(column('build'), ['succeeded 12s']);
  assert.deepEqual(column('test ×3'), ['1 running, 1 succeeded, 1 failed', 'linux succeeded 10s', 'mac   running 18s', 'win   failed 3s (3/3 attempts)']);
  assert.equal(column('package')[0], 'blocked');
  // A step that waits for another outcome than success says so.
  assert.deepEqual(column('cleanup'), ['after deploy (finished)', 'blocked']);
});

test('when the columns do not fit the width, the steps are listed one under another, indented by stage', () => {
  const text = renderRunGraph(release(), { colors: plain, width: 40, now: T0 + 30_000 });
  const body = text.split('\n').slice(4).filter((l) => l !== '');
  assert.deepEqual(body, [
    'build',
    '  succeeded 12s',
    '  test ×3',
    '    1 running, 1 succeeded, 1 failed',
    '    linux succeeded 10s',
    '    mac   running 18s',
    '    win   failed 3s (3/3 attempts)',
    '    package',
    '      blocked',
    '      deploy',
    '        blocked',
    '        cleanup',
    '          after deploy (finished)',
    '          blocked',
  ]);
  assert.ok(body.every((l) => l.length <= 40));
});

test('a large matrix lists its first instances and counts the rest', () => {
  const run = release();
  const tests = Array.from({ length: 40 }, (_, i) => job(`t${i}`, 'test', 'queued', { label: `test (t${i})`, matrix: { target: `t${i}` } }));
  run.jobs = [run.jobs[0] as WorkflowRunJob, ...tests];
  const text = renderRunGraph(run, { colors: plain, width: 40, now: T0 });
  assert.match(text, /40 queued/);
  assert.equal((text.match(/^ {4}t\d+ +queued$/gm) ?? []).length, MAX_INSTANCES_SHOWN);
  assert.match(text, new RegExp(`… ${40 - MAX_INSTANCES_SHOWN} more`));
});

test('colours do not change the layout: widths ignore their codes', () => {
  const coloured = renderRunGraph(release(), { colors: makeColors(true), width: 200, now: T0 + 30_000 });
  const stripped = coloured.replace(/\x1b\[[0-9;]*m/g, '');
  assert.equal(stripped, renderRunGraph(release(), { colors: plain, width: 200, now: T0 + 30_000 }));
});

test('progress prints a line per change since the last read: started, succeeded, failed, cancelled; waiting says nothing', () => {
  const seen: SeenStates = new Map();
  const run = release();
  const first = progressLines(run, seen, plain, T0 + 30_000);
  assert.deepEqual(first, ['succeeded  build in 12s', 'succeeded  test (linux) in 10s', 'started    test (mac)', 'failed     test (win) after 3s, 3 attempts: exit code 2']);
  assert.deepEqual(progressLines(run, seen, plain, T0 + 31_000), []);
  const next = release();
  next.jobs = next.jobs.map((j) =>
    j.id === 'j-mac'
      ? { ...j, state: 'completed', finishedAt: T0 + 40_000 }
      : j.id === 'j-package' || j.id === 'j-deploy'
        ? { ...j, id: j.id === 'j-package' ? '0193a5b2-7c1e-7d4f-8a9b-000000000001' : j.id, state: 'cancelled', lastError: `dependency ${j.id === 'j-package' ? 'j-win' : '0193a5b2-7c1e-7d4f-8a9b-000000000001'} failed, and this job ran only if it succeeded\nmore` }
        : j,
  );
  assert.deepEqual(progressLines(next, seen, plain, T0 + 41_000), ['succeeded  test (mac) in 28s', 'cancelled  package: dependency j-win failed, and this job ran only if it succeeded', 'cancelled  deploy: dependency package failed, and this job ran only if it succeeded']);
});

test('the last line gives the run state, its counts, and how to retry a failed run', () => {
  const run = release();
  run.state = 'failed';
  run.endedAt = T0 + 65_000;
  assert.equal(finalLine(run, plain, T0 + 70_000), 'Run 0193a5b2-7c1e-7d4f-8a9b-1c2d3e4f5a6b of release failed in 1m5s: 1 running, 2 succeeded, 1 failed, 3 blocked. Retry the failed part with `spool workflow retry 0193a5b2-7c1e-7d4f-8a9b-1c2d3e4f5a6b`.');
  assert.equal(stepStateWord('completed'), 'succeeded');
  assert.equal(runCountsText({ completed: 4, running: 1 }), '1 running, 4 succeeded');
  assert.equal(runCountsText({}), 'no jobs');
});
