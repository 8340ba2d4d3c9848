/**
 * The Model Context Protocol server a coding agent talks to (`spool mcp`, stdio): tools to look at
 * queues and jobs, to enqueue, retry and cancel, and to plan the jobs file — each a thin, checked
 * call to the daemon over the same connection the CLI uses (the socket, or SPOOL_ENDPOINT over
 * TLS). The daemon validates every value again and names the field it refuses; this layer only
 * describes the tools and shapes the answers for a reader that is a language model: short JSON,
 * whole ids, times as ISO text.
 *
 * Tools that change something (enqueue, run a template, retry, cancel) are listed always, so an
 * agent can tell the user what it could do, and answer with how to allow them unless the server
 * was started with --allow-write.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { SpoolClient } from '../shared/client/client';
import { readJobId } from '../shared/domain/present';
import { parseJobsFile, planChanges, planText, formatProblem } from '../shared/jobsfile';
import { errorMessage } from '../shared/protocol/errors';
import { JOB_STATES, type Job, type JobRun, type JobState } from '../shared/protocol/types';
import { VERSION } from '../shared/protocol/version';

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
  const server = new McpServer({ name: 'spool', version: VERSION }, { instructions: 'Spool is a local job queue. These tools read its queues and jobs, and (when the server was started with --allow-write) enqueue, retry and cancel jobs. Job ids may be given whole or by their last 8 characters.' });

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
        queue: z.string().optional().describe('Only this queue'),
        states: z.array(z.enum(JOB_STATES as [JobState, ...JobState[]])).optional().describe('Only jobs in these states'),
        kind: z.string().optional().describe('Only this kind (shell, http, or a worker kind)'),
        tag: z.string().optional(),
        branch: z.string().optional().describe('The git branch the job was enqueued from'),
        search: z.string().optional().describe('Text to find in the payload or the last error'),
        order: z.enum(['newest', 'oldest', 'runAt']).optional(),
        limit: z.number().int().min(1).max(200).optional().describe('How many (default 20)'),
        cursor: z.string().optional().describe('nextCursor of the page before'),
      },
      annotations: { readOnlyHint: true },
    },
    tool(async (args: { queue?: string; states?: Job['state'][]; kind?: string; tag?: string; branch?: string; search?: string; order?: 'newest' | 'oldest' | 'runAt'; limit?: number; cursor?: string }, client) => {
      const page = await client.call('jobs.list', { ...args, limit: args.limit ?? 20 });
      return { jobs: page.jobs.map(jobSummary), nextCursor: page.nextCursor };
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
        priority: z.number().int().optional(),
        delaySeconds: z.number().min(0).optional().describe('Start no earlier than this many seconds from now'),
        maxAttempts: z.number().int().min(1).optional(),
        tags: z.array(z.string()).optional(),
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
