/**
 * Where each job of a workflow run is drawn: a pure function of the run (`workflows.get`'s
 * detail) to positioned nodes, clusters and edges, laid out left to right by dagre. Every job is
 * a node; the jobs of a step with a matrix are grouped in a cluster named by the step; an edge
 * runs from each job to each job that waits for it, with the edge's condition. No DOM and no
 * `vscode`: the graph page's script (page/main.ts) runs it in the webview, and the unit tests
 * run it in Node.
 */
import type * as Dagre from '@dagrejs/dagre' with { 'resolution-mode': 'import' };
import type { DependencyCondition } from '../../../shared/protocol/types';
import type { WorkflowRunDetail, WorkflowRunJob } from '../../../shared/protocol/workflows';

/**
 * dagre is an ES module with a CommonJS build beside it; this project's files are CommonJS to
 * TypeScript, so the types are taken from the module and the code from the CommonJS build (which
 * esbuild bundles into the page's script like any other).
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const dagre: typeof Dagre = require('@dagrejs/dagre');

/** A node's height, and the bounds of its width (which follows its label). */
export const NODE_HEIGHT = 44;
const MIN_WIDTH = 110;
const MAX_WIDTH = 220;
/** Roughly the width of a character of the label, in the editor's font at its usual size. */
const CHAR_WIDTH = 7.2;
/** Room above a cluster's box for its step's name. */
export const CLUSTER_LABEL = 18;

/** A job as drawn: the run's job (its id, step, state, attempts, times and last error) where it stands. */
export interface GraphNode extends Pick<WorkflowRunJob, 'id' | 'step' | 'state' | 'attempts' | 'maxAttempts' | 'startedAt' | 'finishedAt' | 'lastError'> {
  /** What the node says: the step, or inside a matrix cluster the job's matrix values. */
  label: string;
  /** The job's full label (`test (linux)`), for a tooltip and a screen reader. */
  title: string;
  /** Top-left corner and size. */
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The box around the jobs of one step with a matrix. */
export interface GraphCluster {
  step: string;
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface GraphEdge {
  /** The job waited for. */
  from: string;
  /** The job that waits. */
  to: string;
  on: DependencyCondition;
  /** The line's points, from the first job's side to the second's. */
  points: { x: number; y: number }[];
}

export interface RunGraph {
  nodes: GraphNode[];
  clusters: GraphCluster[];
  edges: GraphEdge[];
  width: number;
  height: number;
}

/** A node as wide as its label needs, within bounds. */
function nodeWidth(label: string): number {
  return Math.round(Math.min(MAX_WIDTH, Math.max(MIN_WIDTH, label.length * CHAR_WIDTH + 36)));
}

function clusterId(step: string): string {
  return `step:${step}`;
}

/** The jobs of the run, laid out left to right: a job right of every job it waits for. */
export function layoutRun(run: Pick<WorkflowRunDetail, 'steps' | 'jobs'>): RunGraph {
  const g = new dagre.graphlib.Graph({ compound: true, multigraph: false });
  g.setGraph({ rankdir: 'LR', nodesep: 16 + CLUSTER_LABEL, ranksep: 56, marginx: 12, marginy: 12 + CLUSTER_LABEL });
  g.setDefaultEdgeLabel(() => ({}));
  const matrixSteps = new Set(run.steps.filter((s) => s.matrix !== undefined && Object.keys(s.matrix).length > 0).map((s) => s.name));
  // A step's jobs in a cluster when the step has a matrix (even of one job: it is still a fan-out).
  for (const step of matrixSteps) if (run.jobs.some((j) => j.step === step)) g.setNode(clusterId(step), { width: 0, height: 0 });
  const labels = new Map<string, string>();
  for (const job of run.jobs) {
    const inCluster = matrixSteps.has(job.step);
    const label = inCluster && job.matrix !== undefined && Object.keys(job.matrix).length > 0 ? Object.values(job.matrix).join(', ') : job.label;
    labels.set(job.id, label);
    g.setNode(job.id, { width: nodeWidth(label), height: NODE_HEIGHT });
    if (inCluster) g.setParent(job.id, clusterId(job.step));
  }
  const ids = new Set(run.jobs.map((j) => j.id));
  for (const job of run.jobs) for (const d of job.dependsOn) if (ids.has(d.id)) g.setEdge(d.id, job.id, { on: d.on });
  dagre.layout(g);

  const nodes: GraphNode[] = run.jobs.map((job) => {
    const n = g.node(job.id);
    const x = n.x ?? 0;
    const y = n.y ?? 0;
    const { id, step, state, attempts, maxAttempts, startedAt, finishedAt, lastError } = job;
    return {
      ...{ id, step, state, attempts, maxAttempts, startedAt, finishedAt, lastError },
      label: labels.get(job.id) ?? job.label,
      title: job.label,
      x: x - n.width / 2,
      y: y - n.height / 2,
      width: n.width,
      height: n.height,
    };
  });
  const clusters: GraphCluster[] = [];
  for (const step of matrixSteps) {
    if (!g.hasNode(clusterId(step))) continue;
    const c = g.node(clusterId(step));
    clusters.push({ step, x: (c.x ?? 0) - c.width / 2, y: (c.y ?? 0) - c.height / 2, width: c.width, height: c.height });
  }
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const edges: GraphEdge[] = g.edges().map((e: { v: string; w: string }) => {
    const label = g.edge(e);
    const on: unknown = label.on;
    const inner = (label.points ?? []).slice(1, -1).map((p: { x: number; y: number }) => ({ x: p.x, y: p.y }));
    // dagre ends a line where it meets a box on the way to the next point (a top or a bottom for
    // a slanted line); a left-to-right graph reads better with lines from a box's right side to
    // the next box's left side, at mid-height.
    const from = byId.get(e.v);
    const to = byId.get(e.w);
    const points = from && to ? [{ x: from.x + from.width, y: from.y + from.height / 2 }, ...inner, { x: to.x, y: to.y + to.height / 2 }] : inner;
    return { from: e.v, to: e.w, on: on === 'failed' || on === 'finished' ? on : 'succeeded', points };
  });
  const graph = g.graph();
  return { nodes, clusters, edges, width: graph.width ?? 0, height: graph.height ?? 0 };
}
