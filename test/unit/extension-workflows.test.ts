/**
 * What the Workflows view lists and says (extension/views/workflows/model.ts): the daemon's
 * workflows and then the workspace files' ones it does not hold, a run in a line, a workflow's
 * last run, and the checks on a parameter typed before a run.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { DeclaredWorkflow } from '../../shared/protocol/projects';
import type { Workflow, WorkflowRun } from '../../shared/protocol/workflows';
import { paramProblem, runDescription, runName, workflowDescription, workflowEntries } from '../../extension/views/workflows/model';

const NOW = 1_800_000_000_000;

function declared(name: string, description?: string): DeclaredWorkflow {
  return { name, params: { version: { type: 'string' } }, steps: [], ...(description ? { description } : {}) };
}

function run(fields: Partial<WorkflowRun> = {}): WorkflowRun {
  return {
    id: '0193b6f0-0000-7000-8000-0000001a2b3c',
    workflow: 'release',
    params: { version: '1.2' },
    state: 'failed',
    counts: { blocked: 0, queued: 0, running: 0, retrying: 0, held: 0, completed: 4, dead: 1, cancelled: 2 },
    total: 7,
    source: 'user',
    createdAt: NOW - 180_000,
    endedAt: NOW - 60_000,
    ...fields,
  };
}

function held(name: string, lastRun: WorkflowRun | null = null): Workflow {
  return { ...declared(name), owner: 'shop', lastRun };
}

test("the daemon's workflows come first, then the files' ones it does not hold, run as the file declares them", () => {
  const entries = workflowEntries([held('release', run()), held('nightly')], [
    { file: 'spool.jsonc', workflows: [declared('release'), declared('docs', 'Build the docs')] },
    { file: 'other/spool.jsonc', workflows: [declared('docs'), declared('bench')] },
  ]);
  assert.deepEqual(entries.map((e) => `${e.name}:${e.source}`), ['nightly:daemon', 'release:daemon', 'bench:file', 'docs:file']);
  const docs = entries.find((e) => e.name === 'docs');
  assert.equal(docs?.file, 'spool.jsonc', 'the first file that declares a name is the one run');
  assert.equal(docs?.definition?.name, 'docs');
  assert.equal(entries.find((e) => e.name === 'release')?.definition, undefined, 'a held workflow runs as the daemon holds it');
});

test('a run reads as its state, its jobs by state and when it started; a workflow by its last run', () => {
  assert.equal(runName(run()), 'release #001a2b3c');
  assert.equal(runDescription(run(), NOW), 'failed · 1 dead · 2 cancelled · 4 completed · 3m ago');
  assert.equal(runDescription(run({ state: 'running', counts: { blocked: 3, queued: 0, running: 1, retrying: 0, held: 0, completed: 3, dead: 0, cancelled: 0 } }), NOW), 'running · 1 running · 3 blocked · 3 completed · 3m ago');
  const [release, docs] = workflowEntries([held('release', run())], [{ file: 'spool.jsonc', workflows: [declared('docs')] }]);
  assert.ok(release && docs);
  assert.equal(workflowDescription(release, NOW), 'last run failed 3m ago');
  assert.equal(workflowDescription({ ...release, lastRun: null }, NOW), 'never run');
  assert.equal(workflowDescription(docs, NOW), 'spool.jsonc, not applied');
});

test("a parameter's value is checked against its type before the run is asked for", () => {
  assert.equal(paramProblem('version', { type: 'string', default: '0.0' }, ''), null);
  assert.equal(paramProblem('version', { type: 'string' }, ''), 'version has no default: give a value.');
  assert.equal(paramProblem('shards', { type: 'number' }, '3'), null);
  assert.equal(paramProblem('shards', { type: 'number' }, 'three'), 'shards must be a number.');
  assert.equal(paramProblem('dry', { type: 'boolean' }, 'true'), null);
  assert.equal(paramProblem('dry', { type: 'boolean' }, 'yes'), 'dry must be true or false.');
});
