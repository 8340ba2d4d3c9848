/**
 * `spool mcp` as a coding agent sees it: the CLI as a process, spoken to in MCP over stdio by the
 * protocol's own client (initialize, tools/list, tools/call), against a real daemon on a
 * temporary socket. Read-only by default; --allow-write lets it enqueue, retry and cancel.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startDaemon, waitFor, type TestDaemon } from '../helpers/daemon';
import { cliEnv, runCli, SPOOL_BIN } from './cli-run';

interface Agent {
  client: Client;
  /** Calls a tool and returns its text, failing the test on a protocol error. */
  call(name: string, args?: Record<string, unknown>): Promise<{ text: string; isError: boolean }>;
  close(): Promise<void>;
}

async function startAgent(daemon: TestDaemon, args: string[], cwd: string): Promise<Agent> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [SPOOL_BIN, 'mcp', ...args],
    cwd,
    env: cliEnv(daemon.socketPath) as Record<string, string>,
    stderr: 'pipe',
  });
  const client = new Client({ name: 'spool-test', version: '1.0.0' });
  await client.connect(transport);
  return {
    client,
    async call(name, toolArgs = {}) {
      const result = (await client.callTool({ name, arguments: toolArgs })) as CallToolResult;
      const first = result.content[0];
      assert.ok(first !== undefined && first.type === 'text', `${name} answers with text`);
      return { text: first.text, isError: result.isError === true };
    },
    close: () => client.close(),
  };
}

describe('spool mcp', () => {
  let daemon: TestDaemon;
  let dir: string;
  let reader: Agent;
  let writer: Agent;

  before(async () => {
    daemon = await startDaemon();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spool-mcp-'));
    fs.writeFileSync(
      path.join(dir, 'spool.jsonc'),
      `{ "project": "mcp-test", "queues": { "builds": { "concurrency": 2 } },
         "templates": { "hello": { "queue": "builds", "kind": "shell", "command": "echo hello {{who}}", "params": { "who": { "default": "world" } } } },
         "workflows": { "greet": { "params": { "who": { "type": "string" } }, "steps": {
           "first": { "queue": "builds", "shell": "echo first {{who}}" },
           "second": { "queue": "builds", "shell": "echo second {{who}}", "needs": ["first"] } } } } }`,
    );
    reader = await startAgent(daemon, [], dir);
    writer = await startAgent(daemon, ['--allow-write'], dir);
  });

  after(async () => {
    await reader?.close();
    await writer?.close();
    await daemon?.dispose();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('initialize names the server, and tools/list describes every tool with its input schema', async () => {
    assert.equal(reader.client.getServerVersion()?.name, 'spool');
    const { tools } = await reader.client.listTools();
    const names = tools.map((t) => t.name).sort();
    assert.deepEqual(names, ['cancel_job', 'enqueue_shell', 'get_job', 'get_workflow_run', 'list_jobs', 'list_queues', 'list_schedules', 'list_templates', 'list_workflows', 'plan_jobs_file', 'retry_job', 'run_template', 'run_workflow']);
    for (const t of tools) assert.ok((t.description ?? '').length > 20, `${t.name} is described`);
    const getJob = tools.find((t) => t.name === 'get_job');
    assert.deepEqual(getJob?.inputSchema.required, ['id']);
    assert.equal(tools.find((t) => t.name === 'list_jobs')?.annotations?.readOnlyHint, true);
    // Every input field is described, so the agent knows what each takes.
    for (const t of tools) {
      for (const [field, schema] of Object.entries(t.inputSchema.properties ?? {})) assert.ok(((schema as { description?: string }).description ?? '').length > 0, `${t.name}.${field} is described`);
    }
    const listJobs = tools.find((t) => t.name === 'list_jobs')?.inputSchema.properties ?? {};
    for (const filter of ['queue', 'states', 'delayed', 'idSuffix', 'kind', 'tag', 'branch', 'search', 'order', 'limit', 'cursor']) assert.ok(filter in listJobs, `list_jobs takes ${filter}, as spool jobs does`);
    assert.deepEqual(tools.find((t) => t.name === 'run_workflow')?.inputSchema.required, ['name']);
  });

  test('without --allow-write, a tool that changes something says how to allow it and enqueues nothing', async () => {
    const { text, isError } = await reader.call('enqueue_shell', { queue: 'builds', command: 'true' });
    assert.equal(isError, true);
    assert.match(text, /spool mcp --allow-write/);
    const client = await daemon.client();
    assert.equal((await client.call('jobs.list', { queue: 'builds' })).jobs.length, 0);
  });

  test('a shell job enqueued by the agent runs in its folder, and get_job reads it by the end of its id with its output', async () => {
    const enqueued = await writer.call('enqueue_shell', { queue: 'builds', command: 'pwd; echo done >&2; exit 3', maxAttempts: 1 });
    assert.equal(enqueued.isError, false, enqueued.text);
    const { job } = JSON.parse(enqueued.text) as { job: { id: string; state: string } };
    const client = await daemon.client();
    await waitFor('the job dies', async () => (await client.call('jobs.get', { id: job.id })).job.state === 'dead', 20_000);
    const read = await reader.call('get_job', { id: job.id.slice(-8), outputLines: 10 });
    assert.equal(read.isError, false, read.text);
    const got = JSON.parse(read.text) as { job: { id: string; state: string; lastError: string }; runs: { outcome: string; exitCode: number }[]; output: string[] };
    assert.equal(got.job.id, job.id);
    assert.equal(got.job.state, 'dead');
    assert.match(got.job.lastError, /exited with code 3/);
    assert.deepEqual(got.runs.map((r) => [r.outcome, r.exitCode]), [['failed', 3]]);
    assert.ok(got.output.includes(fs.realpathSync(dir)), `the job ran in the agent's folder: ${got.output.join(' | ')}`);
    assert.ok(got.output.includes('[stderr] done'), got.output.join(' | '));

    const listed = JSON.parse((await reader.call('list_jobs', { queue: 'builds', states: ['dead'] })).text) as { jobs: { id: string }[] };
    assert.deepEqual(listed.jobs.map((j) => j.id), [job.id]);

    const retried = await writer.call('retry_job', { id: job.id });
    assert.equal(retried.isError, false, retried.text);
    await waitFor('the retry runs', async () => (await client.call('jobs.get', { id: job.id })).runs.length === 2, 20_000);
  });

  test('list_jobs takes the filters of spool jobs: several queues, delayed, the end of an id', async () => {
    const client = await daemon.client();
    const later = Date.now() + 3_600_000;
    const a = await client.call('jobs.enqueue', { queue: 'filters-a', kind: 'nobody-takes-this', payload: {}, runAt: later });
    const b = await client.call('jobs.enqueue', { queue: 'filters-b', kind: 'nobody-takes-this', payload: {} });
    await client.call('jobs.enqueue', { queue: 'filters-c', kind: 'nobody-takes-this', payload: {} });
    const ids = async (args: Record<string, unknown>) => {
      const r = await reader.call('list_jobs', args);
      assert.equal(r.isError, false, r.text);
      return (JSON.parse(r.text) as { jobs: { id: string }[] }).jobs.map((j) => j.id).sort();
    };
    assert.deepEqual(await ids({ queue: ['filters-a', 'filters-b'] }), [a.job.id, b.job.id].sort());
    assert.deepEqual(await ids({ queue: ['filters-a', 'filters-b'], states: ['queued'], delayed: true }), [a.job.id]);
    assert.deepEqual(await ids({ queue: ['filters-a', 'filters-b'], states: ['queued'], delayed: false }), [b.job.id]);
    assert.deepEqual(await ids({ idSuffix: b.job.id.slice(-8) }), [b.job.id]);
    const many = await reader.call('list_jobs', { queue: ['filters-a', 'filters-b'], cursor: 'x' });
    assert.equal(many.isError, true);
    assert.match(many.text, /one queue/);
    const badSuffix = await reader.call('list_jobs', { idSuffix: 'XYZ' });
    assert.equal(badSuffix.isError, true);
    assert.match(badSuffix.text, /idSuffix/);
  });

  test('run_workflow starts the workflow spool.jsonc declares; get_workflow_run follows it to its end; read-only refuses', async () => {
    const listed = JSON.parse((await reader.call('list_workflows')).text) as { jobsFile: { name: string; steps: string[] }[] };
    assert.deepEqual(listed.jobsFile, [{ name: 'greet', params: { who: { type: 'string' } }, steps: ['first', 'second'] }]);

    const refused = await reader.call('run_workflow', { name: 'greet', params: { who: 'agent' } });
    assert.equal(refused.isError, true);
    assert.match(refused.text, /spool mcp --allow-write/);
    const mistyped = await writer.call('run_workflow', { name: 'greet', params: { whom: 'agent' } });
    assert.equal(mistyped.isError, true);
    assert.match(mistyped.text, /no parameter "whom".*Did you mean "who"/);
    const missing = await writer.call('run_workflow', { name: 'nothing-of-this-name' });
    assert.equal(missing.isError, true);
    assert.match(missing.text, /nothing-of-this-name/);

    const started = await writer.call('run_workflow', { name: 'greet', params: { who: 'agent' } });
    assert.equal(started.isError, false, started.text);
    const { run, jobs, from } = JSON.parse(started.text) as { run: { id: string; state: string }; jobs: { id: string; step: string }[]; from: string };
    assert.equal(from, 'spool.jsonc');
    assert.deepEqual(jobs.map((j) => j.step), ['first', 'second']);
    const ended = await waitFor('the run to end', async () => {
      const r = JSON.parse((await reader.call('get_workflow_run', { id: run.id })).text) as { state: string; jobs: { step: string; state: string }[] };
      return r.state !== 'running' ? r : undefined;
    }, 30_000);
    assert.equal(ended.state, 'succeeded');
    assert.deepEqual(ended.jobs.map((j) => [j.step, j.state]), [['first', 'completed'], ['second', 'completed']]);
    const second = JSON.parse((await reader.call('get_job', { id: jobs[1]?.id ?? '' })).text) as { output: string[] };
    assert.deepEqual(second.output, ['second agent']);
  });

  test("the daemon's refusal reaches the agent in the daemon's words, naming the field", async () => {
    const bad = await writer.call('enqueue_shell', { queue: 'builds', command: 'true', cwd: 'relative/folder' });
    assert.equal(bad.isError, true);
    assert.match(bad.text, /cwd/);
    const unknown = await reader.call('get_job', { id: 'ffffffff' });
    assert.equal(unknown.isError, true);
    assert.match(unknown.text, /No job id ends in ffffffff/);
    const schemaRefusal = await reader.call('list_jobs', { states: ['sleeping'] });
    assert.equal(schemaRefusal.isError, true);
    assert.match(schemaRefusal.text, /states/);
  });

  test('plan_jobs_file plans spool.jsonc without applying it; run_template then enqueues from an applied template', async () => {
    const planned = await reader.call('plan_jobs_file');
    assert.equal(planned.isError, false, planned.text);
    const plan = JSON.parse(planned.text) as { plan: string; problems: string[] };
    assert.match(plan.plan, /update\s+queue\s+builds/, "the queue made on first use is adopted");
    assert.match(plan.plan, /create\s+template\s+hello/);
    const client = await daemon.client();
    assert.equal((await client.call('templates.list')).templates.length, 0, 'nothing was applied');

    const broken = path.join(dir, 'broken.jsonc');
    fs.writeFileSync(broken, '{ "project": "mcp-test", "queues": { "x": { "concurrency": "two" } } }');
    const problems = JSON.parse((await reader.call('plan_jobs_file', { file: 'broken.jsonc' })).text) as { plan: null; problems: string[] };
    assert.equal(problems.plan, null);
    assert.match(problems.problems.join('\n'), /broken\.jsonc:1:\d+.*concurrency/);

    const applied = await runCli(['apply', '--yes'], { socketPath: daemon.socketPath, cwd: dir });
    assert.equal(applied.code, 0, applied.stderr);
    const run = await writer.call('run_template', { name: 'hello', params: { who: 'agent' } });
    assert.equal(run.isError, false, run.text);
    const { job } = JSON.parse(run.text) as { job: { id: string } };
    await waitFor('the template job completes', async () => (await client.call('jobs.get', { id: job.id })).job.state === 'completed', 20_000);
    const read = JSON.parse((await reader.call('get_job', { id: job.id })).text) as { output: string[] };
    assert.deepEqual(read.output, ['hello agent']);
  });
});
