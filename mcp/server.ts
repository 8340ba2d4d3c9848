/**
 * The Model Context Protocol server a coding agent talks to (`spool mcp`, stdio): tools to look at
 * queues and jobs, to enqueue, retry and cancel, and to plan the jobs file — each a thin, checked
 * call to the daemon over the same connection the CLI uses (the socket, or SPOOL_ENDPOINT over
 * TLS). The daemon validates every value again and names the field it refuses; this layer only
 * describes the tools and shapes the answers for a reader that is a language model: short JSON,
 * whole ids, times as ISO text.
 *
 * Tools that change something (enqueue, run a template or a workflow, retry, cancel) are listed always, so an
 * agent can tell the user what it could do, and answer with how to allow them unless the server
 * was started with --allow-write.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { SpoolClient } from '../shared/client/client';
import { readJobId, runCountsText } from '../shared/domain/present';
import { parseJobsFile, planChanges, planText, formatProblem, resolveWorkflowParams, type DeclaredWorkflow } from '../shared/jobsfile';
import { errorMessage } from '../shared/protocol/errors';
import { JOB_STATES, type Job, type JobRun, type JobState } from '../shared/protocol/types';
import { VERSION } from '../shared/protocol/version';
import type { WorkflowRun } from '../shared/protocol/workflows';

export interface McpOptions {
  /** The daemon connection, opened on first use (and again after it was lost). */
  client: () => Promise<SpoolClient>;
  /** Whether the daemon is reached over TLS (a shell job then runs in the daemon's folder unless told). */
  remote: boolean;
  /** Whether the tools that change something may run. */
  allowWrite: boolean;
  /** Reads a jobs file (relative to the folder the server runs in). */
  readFile: (file: string) => string;
}

/** The most lines of output `get_job` returns. */
const MAX_OUTPUT_LINES = 1000;

/** A tool's failure, said to the agent as text it can act on. */
class ToolError extends Error {}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

/** A job as an agent needs it: what, where, how it went; payloads kept, noise left out. */
function jobSummary(job: Job): Record<string, unknown> {
  return {
    id: job.id,
    queue: job.queue,
    kind: job.kind,
    state: job.state,
    payload: job.payload,
    attempts: `${job.attempts}/${job.maxAttempts}`,
    priority: job.priority,
    runAt: iso(job.runAt),
    createdAt: iso(job.createdAt),
    startedAt: iso(job.startedAt),
    finishedAt: iso(job.finishedAt),
    ...(job.progress !== null ? { progress: job.progress, progressMessage: job.progressMessage } : {}),
    ...(job.lastError !== null ? { lastError: job.lastError } : {}),
    ...(job.result !== null && job.result !== undefined ? { result: job.result } : {}),
    ...(job.tags.length > 0 ? { tags: job.tags } : {}),
  };
}

function runSummary(run: JobRun): Record<string, unknown> {
  return {
    attempt: run.attempt,
    outcome: run.outcome,
    startedAt: iso(run.startedAt),
    finishedAt: iso(run.finishedAt),
    ...(run.exitCode !== null ? { exitCode: run.exitCode } : {}),
    ...(run.httpStatus !== null ? { httpStatus: run.httpStatus } : {}),
    ...(run.error !== null ? { error: run.error } : {}),
  };
}

const json = (value: unknown): CallToolResult => ({ content: [{ type: 'text', text: JSON.stringify(value, null, 2) }] });
const failure = (text: string): CallToolResult => ({ content: [{ type: 'text', text }], isError: true });

const ID = z.string().describe("A job's whole id, or its last 4 to 36 characters as `spool jobs` and the editor show them");

export function createMcpServer(options: McpOptions): McpServer {
  const server = new McpServer({ name: 'spool', version: VERSION }, { instructions: 'Spool is a local job queue. These tools read its queues, jobs and workflow runs, and (when the server was started with --allow-write) enqueue, retry and cancel jobs and run workflows. Job ids may be given whole or by their last 8 characters.' });

  /** Runs a tool's body and turns any failure into a text the agent reads. */
  const tool = <A>(body: (args: A, client: SpoolClient) => Promise<unknown>, write = false) => async (args: A): Promise<CallToolResult> => {
    if (write && !options.allowWrite) {
      return failure('This tool changes the queue, and this server was started read-only. To allow it, start the server with `spool mcp --allow-write` (in the agent\'s MCP configuration).');
    }
    try {
      return json(await body(args, await options.client()));
    } catch (error) {
      return failure(errorMessage(error));
    }
  };

  /** The whole id of the job `text` names (an end of an id is looked up). */
  const jobId = async (client: SpoolClient, text: string): Promise<string> => {
    const read = readJobId(text);
    if (read.kind === 'whole') return read.id;
    if (read.kind !== 'end') throw new ToolError(`"${text}" is not a job id: give the whole id, or its last 4 to 36 characters (0-9, a-f and -).`);
    const { jobs } = await client.call('jobs.list', { idSuffix: read.suffix, limit: 2 });
    if (jobs[0] === undefined) throw new ToolError(`No job id ends in ${read.suffix}.`);
    if (jobs[1] !== undefined) throw new ToolError(`More than one job id ends in ${read.suffix}: give more of the id.`);
    return jobs[0].id;
  };

  server.registerTool(
    'list_queues',
    {
      title: 'List queues',
      description: 'Every queue with its settings (concurrency, rate, paused) and its jobs counted by state.',
      inputSchema: {},
      annotations: { readOnlyHint: true },
    },
    tool(async (_args: Record<string, never>, client) => {
      const [{ queues }, stats] = await Promise.all([client.call('queues.list'), client.call('stats.get')]);
      const counts = new Map(stats.queues.map((q) => [q.name, { ...q.counts, delayed: q.delayed }]));
      return { queues: queues.map((q) => ({ ...q, counts: counts.get(q.name) ?? null })) };
    }),
  );

  server.registerTool(
    'list_jobs',
    {
      title: 'List jobs',
      description: 'A page of jobs, newest first unless `order` says otherwise, narrowed like `spool jobs`: by queue, states, kind, tag, git branch, or text in the payload and last error.',
      inputSchema: {
        queue: z.union([z.string().min(1), z.array(z.string().min(1)).min(1).max(50)]).optional().describe('Only this queue, or these queues (as `spool jobs --queue a,b`)'),
        states: z.array(z.enum(JOB_STATES as [JobState, ...JobState[]])).optional().describe('Only jobs in these states'),
        delayed: z.boolean().optional().describe('With states [queued]: true = only jobs whose start time is still ahead (`spool jobs --delayed`), false = only due ones'),
        idSuffix: z.string().regex(/^[0-9a-f-]{4,36}$/).optional().describe("Only jobs whose id ends in this (4 to 36 characters of 0-9, a-f and -), as the views show a job's last 8"),
        kind: z.string().optional().describe('Only this kind (shell, http, or a worker kind)'),
        tag: z.string().optional().describe('Only jobs with this tag'),
        branch: z.string().optional().describe('The git branch the job was enqueued from'),
        search: z.string().optional().describe('Text to find in the payload or the last error'),
        order: z.enum(['newest', 'oldest', 'runAt']).optional().describe('newest (default) or oldest by when enqueued, or runAt: by when due'),
        limit: z.number().int().min(1).max(200).optional().describe('How many (default 20)'),
        cursor: z.string().optional().describe('nextCursor of the page before (of a listing of one queue)'),
      },
      annotations: { readOnlyHint: true },
    },
    tool(async (args: { queue?: string | string[]; states?: Job['state'][]; delayed?: boolean; idSuffix?: string; kind?: string; tag?: string; branch?: string; search?: string; order?: 'newest' | 'oldest' | 'runAt'; limit?: number; cursor?: string }, client) => {
      const { queue, ...filter } = args;
      const queues = [...new Set(queue === undefined ? [] : typeof queue === 'string' ? [queue] : queue)];
      const params = { ...filter, limit: args.limit ?? 20 };
      if (queues.length <= 1) {
        const page = await client.call('jobs.list', { ...params, ...(queues[0] === undefined ? {} : { queue: queues[0] }) });
        return { jobs: page.jobs.map(jobSummary), nextCursor: page.nextCursor };
      }
      if (args.cursor !== undefined) throw new ToolError('cursor continues a listing of one queue: give one queue with it.');
      // One page per queue, merged in the order asked for and cut to the limit.
      const pages = await Promise.all(queues.map((q) => client.call('jobs.list', { ...params, queue: q })));
      const order = args.order ?? 'newest';
      const key = (j: Job): number => (order === 'runAt' ? j.runAt : j.createdAt);
      const jobs = pages.flatMap((p) => p.jobs).sort((a, b) => (order === 'newest' ? key(b) - key(a) : key(a) - key(b)) || a.id.localeCompare(b.id));
      const more = jobs.length > params.limit || pages.some((p) => p.nextCursor !== null);
      return { jobs: jobs.slice(0, params.limit).map(jobSummary), nextCursor: null, ...(more ? { more: 'More jobs match: raise limit, or list one queue at a time to page with cursor.' } : {}) };
    }),
  );

  server.registerTool(
    'get_job',
    {
      title: 'Read a job',
      description: 'One job with every attempt (its outcome and error) and the last lines of its output (stdout, stderr and log lines in order).',
      inputSchema: {
        id: ID,
        outputLines: z.number().int().min(0).max(MAX_OUTPUT_LINES).optional().describe(`How many of the last output lines (default 50, at most ${MAX_OUTPUT_LINES})`),
      },
      annotations: { readOnlyHint: true },
    },
    tool(async (args: { id: string; outputLines?: number }, client) => {
      const id = await jobId(client, args.id);
      const { job, runs } = await client.call('jobs.get', { id });
      const last = args.outputLines ?? 50;
      const output = last === 0 ? [] : (await client.call('jobs.output', { id, last })).lines.map((l) => `${l.stream === 'stdout' ? '' : `[${l.stream}] `}${l.text}`);
      return { job: jobSummary(job), runs: runs.map(runSummary), output };
    }),
  );

  server.registerTool(
    'list_schedules',
    {
      title: 'List schedules',
      description: 'Every schedule: its cron expression and time zone, what it enqueues, whether it is enabled, and its next fire time.',
      inputSchema: {},
      annotations: { readOnlyHint: true },
    },
    tool(async (_args: Record<string, never>, client) => client.call('schedules.list')),
  );

  server.registerTool(
    'list_templates',
    {
      title: 'List templates',
      description: 'The job templates (from spool.jsonc) that run_template can enqueue, with their parameters.',
      inputSchema: {},
      annotations: { readOnlyHint: true },
    },
    tool(async (_args: Record<string, never>, client) => client.call('templates.list')),
  );

  server.registerTool(
    'enqueue_shell',
    {
      title: 'Run a command as a job',
      description: 'Enqueue a shell job: the daemon runs the command with /bin/sh in `cwd` and keeps its output. Returns the job; read it later with get_job. Needs --allow-write.',
      inputSchema: {
        queue: z.string().describe('The queue (made with its defaults if it does not exist)'),
        command: z.string().min(1).describe('The command line /bin/sh runs'),
        cwd: z.string().optional().describe('The absolute folder to run it in, on the daemon\'s machine (default: the folder this server runs in, for a local daemon)'),
        priority: z.number().int().optional().describe('Higher runs first (default 0)'),
        delaySeconds: z.number().min(0).optional().describe('Start no earlier than this many seconds from now'),
        maxAttempts: z.number().int().min(1).optional().describe('How many attempts before the job ends dead'),
        tags: z.array(z.string()).optional().describe('Tags to find the job by (list_jobs tag)'),
      },
      annotations: { destructiveHint: false },
    },
    tool(async (args: { queue: string; command: string; cwd?: string; priority?: number; delaySeconds?: number; maxAttempts?: number; tags?: string[] }, client) => {
      const cwd = args.cwd ?? (options.remote ? undefined : process.cwd());
      const { job, created } = await client.call('jobs.enqueue', {
        queue: args.queue,
        kind: 'shell',
        payload: { command: args.command, ...(cwd === undefined ? {} : { cwd }) },
        ...(args.priority === undefined ? {} : { priority: args.priority }),
        ...(args.delaySeconds === undefined ? {} : { delayMs: Math.round(args.delaySeconds * 1000) }),
        ...(args.maxAttempts === undefined ? {} : { maxAttempts: args.maxAttempts }),
        ...(args.tags === undefined ? {} : { tags: args.tags }),
      });
      return { job: jobSummary(job), created };
    }, true),
  );

  server.registerTool(
    'run_template',
    {
      title: 'Enqueue a template',
      description: 'Enqueue a job from a template declared in spool.jsonc (see list_templates), with values for its {{parameters}}. Needs --allow-write.',
      inputSchema: {
        name: z.string().describe('The template'),
        params: z.record(z.string(), z.string()).optional().describe('Values of its parameters; its defaults fill the rest'),
      },
    },
    tool(async (args: { name: string; params?: Record<string, string> }, client) => {
      const { job, created } = await client.call('templates.enqueue', { name: args.name, ...(args.params === undefined ? {} : { params: args.params }) });
      return { job: jobSummary(job), created };
    }, true),
  );

  server.registerTool(
    'retry_job',
    {
      title: 'Retry a job',
      description: 'Run a completed, dead or cancelled job again (its attempts start over). Needs --allow-write.',
      inputSchema: { id: ID },
    },
    tool(async (args: { id: string }, client) => jobSummary((await client.call('jobs.retry', { id: await jobId(client, args.id) })).job), true),
  );

  server.registerTool(
    'cancel_job',
    {
      title: 'Cancel a job',
      description: 'Cancel a waiting job, or ask a running one to stop (its worker is told; a shell job is killed). Needs --allow-write.',
      inputSchema: { id: ID },
      annotations: { destructiveHint: true },
    },
    tool(async (args: { id: string }, client) => jobSummary((await client.call('jobs.cancel', { id: await jobId(client, args.id) })).job), true),
  );

  /** The workflow `name` as the jobs file in the server's folder declares it, or null when it does not. */
  const declaredWorkflow = (name: string, file: string | undefined): DeclaredWorkflow | null => {
    let text: string;
    try {
      text = options.readFile(file ?? 'spool.jsonc');
    } catch (error) {
      if (file !== undefined) throw new ToolError(`Cannot read ${file}: ${errorMessage(error)}`);
      return null;
    }
    const parsed = parseJobsFile(text);
    const errors = parsed.problems.filter((p) => p.severity === 'error');
    const declared = parsed.declaration?.workflows?.find((w) => w.name === name) ?? null;
    if (declared !== null && errors.length > 0) throw new ToolError(`${file ?? 'spool.jsonc'} has problems; fix them first:\n${errors.map((p) => formatProblem(p, file ?? 'spool.jsonc')).join('\n')}`);
    if (declared === null && file !== undefined) throw new ToolError(`${file} declares no workflow "${name}".`);
    return declared;
  };

  /** A run as an agent reads it: its state, counts of its jobs, and each job's step and state. */
  const workflowRunSummary = (run: WorkflowRun): Record<string, unknown> => ({
    id: run.id,
    workflow: run.workflow,
    state: run.state,
    params: run.params,
    jobs: runCountsText(run.counts) || 'none',
    total: run.total,
    source: run.source,
    createdAt: iso(run.createdAt),
    endedAt: iso(run.endedAt),
  });

  server.registerTool(
    'list_workflows',
    {
      title: 'List workflows',
      description: 'The workflows run_workflow can start: those the daemon holds (applied from spool.jsonc) with their parameters, steps and last run, and those the spool.jsonc in the server\'s folder declares.',
      inputSchema: {},
      annotations: { readOnlyHint: true },
    },
    tool(async (_args: Record<string, never>, client) => {
      const { workflows } = await client.call('workflows.list');
      let file: { name: string; params: Record<string, unknown>; steps: string[] }[] = [];
      try {
        const parsed = parseJobsFile(options.readFile('spool.jsonc'));
        file = (parsed.declaration?.workflows ?? []).map((w) => ({ name: w.name, params: w.params, steps: w.steps.map((step) => step.name) }));
      } catch {
        // No jobs file in the folder: only the daemon's workflows.
      }
      return {
        daemon: workflows.map((w) => ({ name: w.name, params: w.params, steps: w.steps.map((step) => step.name), owner: w.owner, lastRun: w.lastRun === null ? null : workflowRunSummary(w.lastRun) })),
        jobsFile: file,
      };
    }),
  );

  server.registerTool(
    'run_workflow',
    {
      title: 'Run a workflow',
      description: 'Start a run of a workflow, as `spool run NAME` does: the one spool.jsonc in the server\'s folder declares (as the file says now, applied or not), else the daemon\'s workflow of that name. Returns the run and its jobs; follow it with get_workflow_run. Needs --allow-write.',
      inputSchema: {
        name: z.string().min(1).describe('The workflow (see list_workflows)'),
        params: z.record(z.string(), z.string()).optional().describe("Values of its parameters, as text; its defaults fill the rest, and each is checked against its declared type"),
        file: z.string().min(1).optional().describe('Take the workflow from this jobs file instead of spool.jsonc in the server\'s folder'),
      },
      annotations: { destructiveHint: false },
    },
    tool(async (args: { name: string; params?: Record<string, string>; file?: string }, client) => {
      const declared = declaredWorkflow(args.name, args.file);
      const given = args.params ?? {};
      if (declared !== null) {
        // Checked here in the words every client uses, so a mistyped parameter starts nothing.
        const resolved = resolveWorkflowParams(declared, given);
        if (!resolved.ok) throw new ToolError(`Cannot start a run: ${resolved.message}.`);
      }
      const started = await client.call('workflows.run', { workflow: args.name, params: given, ...(declared === null ? {} : { definition: declared }) });
      return { from: declared === null ? 'daemon' : (args.file ?? 'spool.jsonc'), run: workflowRunSummary(started.run), jobs: started.jobs };
    }, true),
  );

  server.registerTool(
    'get_workflow_run',
    {
      title: 'Read a workflow run',
      description: "A workflow run with every job: its step (with matrix values), state, attempts, and why it failed; the run's state is running until every job has ended.",
      inputSchema: { id: z.string().min(1).describe("The run's id (from run_workflow or list_workflows)") },
      annotations: { readOnlyHint: true },
    },
    tool(async (args: { id: string }, client) => {
      const run = await client.call('workflows.get', { id: args.id });
      return {
        ...workflowRunSummary(run),
        jobs: run.jobs.map((j) => ({ id: j.id, step: j.label, state: j.state, attempts: `${j.attempts}/${j.maxAttempts}`, ...(j.lastError !== null ? { lastError: j.lastError } : {}), waitsFor: j.dependsOn.map((d) => d.id) })),
      };
    }),
  );

  server.registerTool(
    'plan_jobs_file',
    {
      title: 'Plan the jobs file',
      description: 'What `spool apply` would create, update or delete on the daemon from spool.jsonc (queues, schedules, templates), or the file\'s problems with their lines. Only plans: nothing is applied.',
      inputSchema: { file: z.string().optional().describe('The jobs file (default spool.jsonc in the folder the server runs in)') },
      annotations: { readOnlyHint: true },
    },
    tool(async (args: { file?: string }, client) => {
      const file = args.file ?? 'spool.jsonc';
      const parsed = parseJobsFile(options.readFile(file));
      const problems = parsed.problems.map((p) => formatProblem(p, file));
      if (parsed.declaration === null || parsed.problems.some((p) => p.severity === 'error')) return { file, problems, plan: null };
      const plan = planChanges(parsed.declaration, await client.call('project.state', { project: parsed.declaration.project }));
      return { file, problems, plan: planText(plan, { showUnchanged: false }) };
    }),
  );

  return server;
}
