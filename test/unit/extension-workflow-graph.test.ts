/**
 * The graph of a workflow run (extension/views/workflowRun): the layout (dagre, left to right,
 * matrix instances in a cluster per step, edges with their conditions) and what the page draws
 * from it, read as pure functions of a run like `workflows.get` returns.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { JobState } from '../../shared/protocol/types';
import type { WorkflowRunDetail, WorkflowRunJob } from '../../shared/protocol/workflows';
import { runPageDocument } from '../../extension/views/workflowRun/document';
import { layoutRun, type GraphNode, type RunGraph } from '../../extension/views/workflowRun/layout';
import { readRunPageMessage, RUN_MESSAGE } from '../../extension/views/workflowRun/messages';
import { edgePath, nodeStatus, renderRunBody, runActions, runCounts, runName, runTitle, RUN_STYLE } from '../../extension/views/workflowRun/render';

const NOW = 1_800_000_000_000;
const HOSTILE = '<script>alert("x")</script><img src=x onerror=alert(1)>';

function id(n: number): string {
  return `0193b6f0-0000-7000-8000-${String(n).padStart(12, '0')}`;
}

function job(n: number, step: string, fields: Partial<WorkflowRunJob> = {}): WorkflowRunJob {
  return { id: id(n), step, label: step, queue: 'builds', kind: 'shell', state: 'blocked', attempts: 0, maxAttempts: 1, startedAt: null, finishedAt: null, lastError: null, dependsOn: [], ...fields };
}

/** The issue's `release`: build → test ×3 (matrix) → package → deploy → cleanup (on finished). */
function releaseRun(states: Partial<Record<string, JobState>> = {}): WorkflowRunDetail {
  const s = (label: string): JobState => states[label] ?? 'blocked';
  const targets = ['linux', 'mac', 'win'];
  const tests = targets.map((t, i) => job(2 + i, 'test', { label: `test (${t})`, matrix: { target: t }, state: s(`test (${t})`), dependsOn: [{ id: id(1), on: 'succeeded' }] }));
  const jobs = [
    job(1, 'build', { state: s('build') }),
    ...tests,
    job(5, 'package', { state: s('package'), dependsOn: tests.map((t) => ({ id: t.id, on: 'succeeded' as const })) }),
    job(6, 'deploy', { queue: 'deploys', kind: 'http', state: s('deploy'), dependsOn: [{ id: id(5), on: 'succeeded' }] }),
    job(7, 'cleanup', { state: s('cleanup'), dependsOn: [{ id: id(6), on: 'finished' }] }),
  ];
  const counts = { blocked: 0, queued: 0, running: 0, retrying: 0, held: 0, completed: 0, dead: 0, cancelled: 0 };
  for (const j of jobs) counts[j.state] += 1;
  return {
    id: '0193b6f0-0000-7000-8000-0000001a2b3c',
    workflow: 'release',
    params: { version: '1.2' },
    state: 'running',
    counts,
    total: jobs.length,
    source: 'user',
    createdAt: NOW - 60_000,
    endedAt: null,
    steps: [
      { name: 'build', needs: [] },
      { name: 'test', needs: [{ step: 'build', on: 'succeeded' }], matrix: { target: targets } },
      { name: 'package', needs: [{ step: 'test', on: 'succeeded' }] },
      { name: 'deploy', needs: [{ step: 'package', on: 'succeeded' }] },
      { name: 'cleanup', needs: [{ step: 'deploy', on: 'finished' }] },
    ],
    jobs,
  };
}

function node(graph: RunGraph, label: string): GraphNode {
  const found = graph.nodes.find((n) => n.title === label);
  assert.ok(found, `a node for ${label}`);
  return found;
}

function overlap(a: { x: number; y: number; width: number; height: number }, b: { x: number; y: number; width: number; height: number }): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

test('the steps are laid out left to right: each job right of every job it waits for', () => {
  const graph = layoutRun(releaseRun());
  assert.equal(graph.nodes.length, 7);
  const run = releaseRun();
  for (const j of run.jobs) {
    const to = node(graph, j.label);
    for (const d of j.dependsOn) {
      const from = graph.nodes.find((n) => n.id === d.id);
      assert.ok(from && from.x + from.width <= to.x, `${from?.title} left of ${j.label}`);
    }
  }
  const tests = ['linux', 'mac', 'win'].map((t) => node(graph, `test (${t})`));
  assert.equal(new Set(tests.map((t) => t.x)).size, 1, 'the instances of a matrix stand in one column');
  for (const [i, a] of graph.nodes.entries()) for (const b of graph.nodes.slice(i + 1)) assert.ok(!overlap(a, b), `${a.title} and ${b.title} do not overlap`);
  for (const n of graph.nodes) assert.ok(n.x >= 0 && n.y >= 0 && n.x + n.width <= graph.width && n.y + n.height <= graph.height, `${n.title} inside the drawing`);
});

test('the instances of a matrix are grouped in a cluster named by their step, each labelled by its values', () => {
  const graph = layoutRun(releaseRun());
  assert.deepEqual(graph.clusters.map((c) => c.step), ['test']);
  const [cluster] = graph.clusters;
  assert.ok(cluster);
  for (const t of ['linux', 'mac', 'win']) {
    const n = node(graph, `test (${t})`);
    assert.equal(n.label, t);
    assert.ok(n.x >= cluster.x && n.y >= cluster.y && n.x + n.width <= cluster.x + cluster.width && n.y + n.height <= cluster.y + cluster.height, `${t} inside the cluster`);
  }
  for (const other of ['build', 'package', 'deploy', 'cleanup']) assert.ok(!overlap(node(graph, other), cluster), `${other} outside the cluster`);
  assert.equal(node(graph, 'build').label, 'build');
});

test('an edge joins each job to each job that waits for it, with the condition of their dependency', () => {
  const graph = layoutRun(releaseRun());
  assert.equal(graph.edges.length, 3 + 3 + 1 + 1);
  const cleanup = graph.edges.find((e) => e.to === id(7));
  assert.equal(cleanup?.on, 'finished');
  assert.equal(graph.edges.filter((e) => e.to === id(5)).length, 3, 'package waits for every instance of test');
  assert.ok(graph.edges.every((e) => e.points.length >= 2), 'every edge has a line');
  const build = node(graph, 'build');
  const edge = graph.edges.find((e) => e.from === id(1));
  assert.ok(edge?.points[0] && edge.points[0].x >= build.x + build.width - 1, 'an edge leaves a job from its right side');
});

test('a node carries its job state and times; a run of one job and a run of none lay out', () => {
  const graph = layoutRun(releaseRun({ build: 'completed', 'test (linux)': 'running', 'test (win)': 'dead' }));
  assert.equal(node(graph, 'build').state, 'completed');
  assert.equal(node(graph, 'test (linux)').state, 'running');
  assert.equal(node(graph, 'test (win)').state, 'dead');
  const one = layoutRun({ steps: [{ name: 'only', needs: [] }], jobs: [job(1, 'only', { state: 'queued' })] });
  assert.equal(one.nodes.length, 1);
  assert.deepEqual(one.edges, []);
  const none = layoutRun({ steps: [], jobs: [] });
  assert.deepEqual([none.nodes, none.edges, none.clusters], [[], [], []]);
});

test('a node says its state and, running, for how long; an ended run says how long it took', () => {
  const base = { attempts: 1, maxAttempts: 3, startedAt: NOW - 75_000, finishedAt: null };
  assert.equal(nodeStatus({ ...base, state: 'running' }, NOW), 'running 1m15s');
  assert.equal(nodeStatus({ ...base, state: 'running', startedAt: NOW - 7_000 }, NOW), 'running 7s');
  assert.equal(nodeStatus({ ...base, state: 'completed', finishedAt: NOW - 72_000 }, NOW), 'completed · 3s');
  assert.equal(nodeStatus({ ...base, state: 'retrying', attempts: 2 }, NOW), 'retrying · attempt 2/3');
  assert.equal(nodeStatus({ ...base, state: 'blocked', startedAt: null }, NOW), 'blocked');
  const run = releaseRun({ build: 'completed', 'test (linux)': 'running', 'test (mac)': 'completed', 'test (win)': 'dead' });
  assert.equal(runCounts(run), '1 running · 3 blocked · 1 dead · 2 completed');
  assert.equal(runName(run), 'release #001a2b3c');
  assert.equal(runTitle(run), 'Workflow run: release #001a2b3c');
});

test('Retry Failed Part applies to a run that failed or was cancelled, Cancel Run to one running', () => {
  assert.deepEqual(runActions({ state: 'running' }), { retry: false, cancel: true });
  assert.deepEqual(runActions({ state: 'failed' }), { retry: true, cancel: false });
  assert.deepEqual(runActions({ state: 'cancelled' }), { retry: true, cancel: false });
  assert.deepEqual(runActions({ state: 'succeeded' }), { retry: false, cancel: false });
  const run = releaseRun();
  const buttons = (html: string): string[] => [...html.matchAll(/<button [^>]*data-action="([a-z]+)"([^>]*)>/g)].map((m) => `${m[1]}${(m[2] ?? '').includes('disabled') ? ' (disabled)' : ''}`);
  assert.deepEqual(buttons(renderRunBody(run, layoutRun(run), NOW, runActions(run))), ['retry (disabled)', 'cancel']);
  assert.deepEqual(buttons(renderRunBody(run, layoutRun(run), NOW, {})), [], 'a token that cannot manage jobs gets no buttons');
  assert.deepEqual(buttons(renderRunBody(run, layoutRun(run), NOW, runActions(run), true)), ['retry (disabled)', 'cancel (disabled)'], 'nothing applies to a run that is gone');
});

test('the graph draws each job coloured by state and ticking while it runs, and each edge styled by its condition', () => {
  const run = releaseRun({ build: 'completed', 'test (linux)': 'running', 'test (win)': 'dead' });
  const linux = run.jobs.find((j) => j.label === 'test (linux)');
  if (linux) linux.startedAt = NOW - 5_000;
  const html = renderRunBody(run, layoutRun(run), NOW, runActions(run));
  assert.equal(html.match(/<g class="node /g)?.length, 7);
  assert.match(html, new RegExp(`<g class="node state-running" data-job="${id(2)}" data-state="running" data-label="test \\(linux\\)"`));
  assert.match(html, new RegExp(`data-job="${id(2)}"[^]*?<text class="status" x="10" y="35" data-since="${NOW - 5_000}">running 5s</text>`));
  assert.match(html, /<g class="node state-dead" [^>]*data-label="test \(win\)"/);
  assert.match(html, /<g class="cluster" data-step="test">/);
  assert.equal(html.match(/<path class="edge on-succeeded"/g)?.length, 7);
  assert.match(html, new RegExp(`<path class="edge on-finished" data-from="${id(6)}" data-to="${id(7)}" d="M[^"]+" marker-end="url\\(#arrow-finished\\)">`));
  assert.match(html, /<p class="run-state state-running" data-state="running"><strong>running<\/strong> — 1 running · 4 blocked · 1 dead · 1 completed<\/p>/);
  assert.match(html, /<code>version=1\.2<\/code>/);
  assert.match(RUN_STYLE, /\.edge\.on-failed \{ stroke: var\(--vscode-errorForeground\); stroke-dasharray/);
  assert.match(RUN_STYLE, /\.edge\.on-finished \{ stroke-dasharray: 2 3; \}/);
});

test("text from the daemon is drawn as text, and the page's document allows only its own script and style", () => {
  const run = releaseRun();
  run.params = { version: HOSTILE };
  const build = run.jobs[0];
  if (build) {
    build.label = HOSTILE;
    build.lastError = HOSTILE;
  }
  const html = renderRunBody(run, layoutRun(run), NOW, runActions(run));
  assert.ok(!html.includes('<script') && !html.includes('<img'), 'no markup gets through');
  const doc = runPageDocument(runTitle(run), 'https://file+.vscode-resource.vscode-cdn.net/ext/dist/workflowRunPage.js', 'https://file+.vscode-resource.vscode-cdn.net', 'n0nce');
  const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(doc)?.[1];
  assert.equal(csp, "default-src 'none'; style-src 'nonce-n0nce'; script-src 'nonce-n0nce' https://file+.vscode-resource.vscode-cdn.net; img-src data:;");
  assert.match(doc, /<script nonce="n0nce" src="https:\/\/file\+\.vscode-resource\.vscode-cdn\.net\/ext\/dist\/workflowRunPage\.js"><\/script>/);
  assert.equal(doc.match(/<script/g)?.length, 1);
});

test('edges are smooth lines through their points', () => {
  assert.equal(edgePath([{ x: 0, y: 0 }, { x: 10, y: 0 }]), 'M0,0 C1.7,0 8.3,0 10,0');
  assert.equal(edgePath([]), '');
  assert.equal(edgePath([{ x: 0, y: 0 }, { x: 10, y: 10 }, { x: 20, y: 10 }]).split(' C').length, 3);
});

test('only well-formed messages from the graph page are taken', () => {
  assert.deepEqual(readRunPageMessage({ type: RUN_MESSAGE.openJob, id: id(1) }), { type: 'openJob', id: id(1) });
  assert.equal(readRunPageMessage({ type: RUN_MESSAGE.openJob, id: 'x' }), null);
  assert.deepEqual(readRunPageMessage({ type: RUN_MESSAGE.action, action: 'retry' }), { type: 'action', action: 'retry' });
  assert.equal(readRunPageMessage({ type: RUN_MESSAGE.action, action: 'delete' }), null);
  assert.deepEqual(readRunPageMessage({ type: RUN_MESSAGE.ready }), { type: 'ready' });
  assert.equal(readRunPageMessage('ready'), null);
});
