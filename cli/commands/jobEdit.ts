/**
 * `spool job edit <id>` (by flags, or `--editor`: the job's editable fields as JSON in
 * $VISUAL/$EDITOR) and `spool job run-now <id>`: a user's changes to a job that has not started;
 * `spool job pause <id>` / `spool job resume <id>`: stopping a running shell job for a while.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as readline from 'node:readline/promises';
import type { Command } from 'commander';
import type { SpoolClient } from '../../shared/client/client';
import { editableText, editedChanges } from '../../shared/domain/jobEdit';
import { allows } from '../../shared/domain/states';
import { ErrorCode, type UpdateJobParams } from '../../shared/protocol';
import { SpoolError } from '../../shared/protocol/errors';
import type { Job } from '../../shared/protocol/types';
import { action, arg } from '../action';
import type { CliContext } from '../context';
import { CliError } from '../errors';
import { formatDuration, formatTimestamp } from '../format/time';
import { resolveJobId } from '../jobRef';
import { parseDuration } from '../parse/duration';
import { parseStartTime } from '../parse/startTime';
import { collect, parseInteger } from '../parse/values';

type EditOptions = {
  priority?: string;
  at?: string;
  delay?: string;
  attempts?: string;
  timeout?: string;
  tag?: string[];
  weight?: string;
  payload?: string;
  command?: string;
  cwd?: string;
  env?: string[];
  url?: string;
  method?: string;
  header?: string[];
  body?: string;
  group?: string;
  editor?: boolean;
  json?: boolean;
};

export function registerJobEdit(job: Command): void {
  job
    .command('edit')
    .description('Change a job that has not started (blocked, queued, delayed, retrying or held): by flags, or all its fields at once in your editor')
    .argument('<id>', 'the job id, or its last 8 characters (or more)')
    .option('--priority <n>', 'its priority (higher runs first)')
    .option('--at <time>', 'its start time: local unless it names a zone, e.g. 2026-05-01T09:00 or +1h')
    .option('--delay <duration>', 'start no earlier than this from now, e.g. 30s, 5m')
    .option('--attempts <n>', 'how many attempts in all before it is dead')
    .option('--timeout <duration>', 'how long one attempt may run, e.g. 30s, 10m')
    .option('--tag <tag>', 'its tags, replacing the ones it has (repeatable)', collect)
    .option('--weight <n>', "the room it takes of its queue's concurrency")
    .option('--payload <json>', 'its whole payload, as JSON')
    .option('--command <command>', "a shell job's command")
    .option('--cwd <dir>', "a shell job's folder (an absolute path)")
    .option('--env <KEY=VALUE>', "a shell job's environment, replacing the one it has (repeatable)", collect)
    .option('--url <url>', "an HTTP job's URL")
    .option('--method <method>', "an HTTP job's method")
    .option('--header <name:value>', "an HTTP job's headers, replacing the ones it has (repeatable)", collect)
    .option('--body <text>', "an HTTP job's body")
    .option('--group <key|none>', 'its group (its queue\'s group limits count it there), e.g. customer:42; none for no group')
    .option('--editor', 'edit the job as JSON in $VISUAL or $EDITOR; applied when the editor exits, if the file changed')
    .option('--json', 'print the job as changed, as JSON')
    .addHelpText(
      'after',
      `
Nothing is applied to a job that started meanwhile; the message says so.

Examples:
  spool job edit 3f4a5b6c --priority 5 --at +1h
  spool job edit 3f4a5b6c --attempts 3 --timeout 30s --tag nightly
  spool job edit 3f4a5b6c --command "make test" --env CI=1
  spool job edit 3f4a5b6c --group customer:42
  spool job edit 3f4a5b6c --editor`,
    )
    .action(action<EditOptions>((ctx, args, o) => edit(ctx, arg(args, 0), o)));

  job
    .command('run-now')
    .description('Start a delayed job, or a retrying one waiting out its backoff, at once (its next claim takes it)')
    .argument('<id>', 'the job id, or its last 8 characters (or more)')
    .option('--json', 'print {job} as JSON')
    .addHelpText('after', '\nExamples:\n  spool job run-now 3f4a5b6c')
    .action(
      action<{ json?: boolean }>(async (ctx, args, o) => {
        const client = await ctx.client();
        const result = await client.call('jobs.runNow', { id: await resolveJobId(client, arg(args, 0)) });
        if (o.json) ctx.printJson(result);
        else ctx.print(`Job ${result.job.id} is due now: it starts when a worker of queue ${result.job.queue} takes it.`);
      }),
    );

  job
    .command('pause')
    .description("Pause a running shell job: its processes stop where they are (SIGSTOP), its lease and timeout are frozen until it is resumed")
    .argument('<id>', 'the job id, or its last 8 characters (or more)')
    .option('--json', 'print {job} as JSON')
    .addHelpText('after', '\nExamples:\n  spool job pause 3f4a5b6c\n  spool job resume 3f4a5b6c')
    .action(
      action<{ json?: boolean }>(async (ctx, args, o) => {
        const client = await ctx.client();
        const result = await client.call('jobs.pause', { id: await resolveJobId(client, arg(args, 0)) });
        if (o.json) ctx.printJson(result);
        else ctx.print(`Job ${result.job.id} is paused: its processes stop until you resume it (spool job resume ${result.job.id}).`);
      }),
    );

  job
    .command('resume')
    .description('Resume a paused job: its processes go on (SIGCONT), with the lease and timeout it had left')
    .argument('<id>', 'the job id, or its last 8 characters (or more)')
    .option('--json', 'print {job} as JSON')
    .addHelpText('after', '\nExamples:\n  spool job resume 3f4a5b6c')
    .action(
      action<{ json?: boolean }>(async (ctx, args, o) => {
        const client = await ctx.client();
        const result = await client.call('jobs.resume', { id: await resolveJobId(client, arg(args, 0)) });
        if (o.json) ctx.printJson(result);
        else ctx.print(`Job ${result.job.id} runs on.`);
      }),
    );
}

/** The params of jobs.update that the flags give. */
function flagParams(o: EditOptions): Omit<UpdateJobParams, 'id'> {
  const p: Omit<UpdateJobParams, 'id'> = {};
  if (o.priority !== undefined) p.priority = parseInteger(o.priority, '--priority', -1_000_000, 1_000_000);
  if (o.at !== undefined && o.delay !== undefined) throw new CliError('Give --at or --delay, not both.');
  if (o.at !== undefined) p.runAt = parseStartTime(o.at, '--at').at;
  if (o.delay !== undefined) p.delayMs = parseDuration(o.delay, '--delay');
  if (o.attempts !== undefined) p.maxAttempts = parseInteger(o.attempts, '--attempts', 1, 1_000_000);
  if (o.timeout !== undefined) p.timeoutMs = parseDuration(o.timeout, '--timeout');
  if (o.tag !== undefined) p.tags = o.tag;
  if (o.weight !== undefined) p.weight = parseInteger(o.weight, '--weight', 1, 1_000_000);
  if (o.payload !== undefined) {
    try {
      p.payload = JSON.parse(o.payload);
    } catch (error) {
      throw new CliError(`--payload must be JSON: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  if (o.command !== undefined) p.command = o.command;
  if (o.cwd !== undefined) p.cwd = o.cwd;
  if (o.env !== undefined) p.env = pairs(o.env, '=', '--env', 'KEY=VALUE');
  if (o.url !== undefined) p.url = o.url;
  if (o.method !== undefined) p.method = o.method;
  if (o.header !== undefined) p.headers = pairs(o.header, ':', '--header', 'Name: value');
  if (o.body !== undefined) p.body = o.body;
  if (o.group !== undefined) p.group = o.group === 'none' ? null : o.group;
  return p;
}

function pairs(items: readonly string[], separator: string, flag: string, shape: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const item of items) {
    const at = item.indexOf(separator);
    if (at <= 0) throw new CliError(`Invalid ${flag} "${item}": use ${shape}.`);
    out[item.slice(0, at).trim()] = item.slice(at + 1).trimStart();
  }
  return out;
}

async function edit(ctx: CliContext, ref: string, o: EditOptions): Promise<number> {
  const params = flagParams(o);
  if (o.editor === true && Object.keys(params).length > 0) throw new CliError('Give --editor or flags, not both.');
  if (o.editor !== true && Object.keys(params).length === 0) {
    throw new CliError('Say what to change: --priority, --at, --attempts, --timeout, --tag, --group, --command, --url … (see spool job edit --help), or --editor.');
  }
  const client = await ctx.client();
  const id = await resolveJobId(client, ref);
  const { job: before } = await client.call('jobs.get', { id });
  if (!allows('update', before.state)) throw new CliError(`Cannot edit job ${id}: it is ${before.state}, and only a job that has not started (blocked, queued, retrying or held) can change. ${nextStep(id, before.state)}`);
  const changes = o.editor === true ? await editInEditor(ctx, before) : params;
  if (changes === null) return 0;
  const after = await applied(client, id, changes);
  if (o.json) ctx.printJson({ job: after });
  else {
    const lines = changeLines(before, after);
    ctx.print(lines.length === 0 ? `Job ${id}: nothing changed.` : `Changed job ${id}:\n${lines.map((l) => `  ${l}`).join('\n')}`);
  }
  return 0;
}

/** jobs.update, with a job that started meanwhile said as such. */
async function applied(client: SpoolClient, id: string, changes: Omit<UpdateJobParams, 'id'>): Promise<Job> {
  try {
    return (await client.call('jobs.update', { id, ...changes })).job;
  } catch (error) {
    if (error instanceof SpoolError && error.code === ErrorCode.InvalidState) {
      const state = typeof error.data['state'] === 'string' ? error.data['state'] : 'no longer waiting';
      throw new CliError(`Nothing was applied: job ${id} is ${state} now; it changed while it was being edited. ${nextStep(id, state)}`);
    }
    throw error;
  }
}

/**
 * Writes the job's editable fields to a 0600 file in a fresh 0700 folder, opens the editor on it
 * and reads it back when the editor exits: the fields that changed, or null when nothing did
 * (then nothing is applied). A file that is not valid is shown with its error; on a terminal the
 * editor opens again on it (or the edit is abandoned), elsewhere the command fails.
 */
async function editInEditor(ctx: CliContext, job: Job): Promise<Omit<UpdateJobParams, 'id'> | null> {
  const editor = process.env['VISUAL'] || process.env['EDITOR'] || 'vi';
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spool-edit-'));
  fs.chmodSync(dir, 0o700);
  const file = path.join(dir, `job-${job.id.slice(-8)}.json`);
  const original = editableText(job);
  fs.writeFileSync(file, original, { mode: 0o600 });
  try {
    for (;;) {
      // The editor command may carry arguments ("code --wait"), as git runs it: through the shell.
      const ran = spawnSync('/bin/sh', ['-c', `${editor} "$1"`, 'spool-editor', file], { stdio: 'inherit' });
      if (ran.status !== 0) throw new CliError(`The editor (${editor}) exited with ${ran.status === null ? `signal ${ran.signal}` : `status ${ran.status}`}; nothing was applied.`);
      const text = fs.readFileSync(file, 'utf8');
      if (text === original) {
        ctx.note('The file was not changed; nothing was applied.');
        return null;
      }
      try {
        const changes = editedChanges(job, text);
        if (Object.keys(changes).length === 0) ctx.note('No field was changed; nothing was applied.');
        return Object.keys(changes).length === 0 ? null : changes;
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        if (!process.stdin.isTTY) throw new CliError(`Nothing was applied: ${reason}`);
        ctx.note(`The edited job is not valid: ${reason}`);
        const rl = readline.createInterface({ input: process.stdin, output: process.stderr });
        const answer = await rl.question('Edit again? [Y/n] ');
        rl.close();
        if (/^n/i.test(answer.trim())) throw new CliError('Nothing was applied.');
      }
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** "priority: 0 → 5", one line per field that differs. */
function changeLines(before: Job, after: Job): string[] {
  const lines: string[] = [];
  const add = (name: string, a: unknown, b: unknown, show: (v: unknown) => string = (v) => JSON.stringify(v)): void => {
    if (JSON.stringify(a) !== JSON.stringify(b)) lines.push(`${name}: ${show(a)} → ${show(b)}`);
  };
  const time = (v: unknown): string => (typeof v === 'number' ? formatTimestamp(v) : String(v));
  const duration = (v: unknown): string => (typeof v === 'number' ? formatDuration(v) : String(v));
  add('priority', before.priority, after.priority);
  add('run time', before.runAt, after.runAt, time);
  add('attempts', before.maxAttempts, after.maxAttempts);
  add('timeout', before.timeoutMs, after.timeoutMs, duration);
  add('tags', before.tags, after.tags);
  add('weight', before.weight, after.weight);
  add('group', before.group ?? 'none', after.group ?? 'none', String);
  add('payload', before.payload, after.payload);
  return lines;
}

/** What to do with a job that can no longer be edited. */
function nextStep(id: string, state: string): string {
  return state === 'running'
    ? `Cancel it (spool cancel ${id}) or wait for it to end.`
    : `To run it again with changes: spool retry ${id}, then spool hold ${id} and edit it before a worker takes it.`;
}
