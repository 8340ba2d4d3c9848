/**
 * `spool __complete queues|schedules|workers|workflows|runs`: the live names the completion
 * scripts offer (workflows: those of the jobs file in the current folder and the daemon's; runs:
 * the ids of recent workflow runs),
 * one per line. Hidden from help: the scripts call it, people do not. It must never get in the
 * way of typing: with no daemon, a slow one, or any error, it prints nothing and exits 0,
 * within about a second at worst.
 */
import type { Command } from 'commander';
import { SpoolClient } from '../../shared/client/client';
import { action, arg } from '../action';
import { parseJobsFile } from '../../shared/jobsfile';
import { DEFAULT_FILES } from '../jobsfile/read';
import { listRuns, listWorkflows } from '../workflowCalls';
import * as fs from 'node:fs';

/** The kinds of names the completion scripts ask for. */
export const NAME_KINDS = ['queues', 'schedules', 'workers', 'workflows', 'runs'] as const;
type NameKind = (typeof NAME_KINDS)[number];

/** A completion waits this long for the daemon at most: a shell that hangs on <Tab> is worse than no names. */
const CONNECT_TIMEOUT_MS = 300;
const REQUEST_TIMEOUT_MS = 700;

export function registerCompleteNames(program: Command): void {
  program
    .command('__complete', { hidden: true })
    .description('Print live names for shell completion (queues, schedules, workers, workflows or runs)')
    .argument('<kind>', NAME_KINDS.join(', '))
    .action(
      action(async (ctx, args) => {
        const kind = NAME_KINDS.find((k) => k === arg(args, 0));
        if (kind === undefined) return 0;
        const local = kind === 'workflows' ? fileWorkflows() : [];
        const names = [...new Set([...local, ...(await liveNames(ctx.socketPath, kind).catch(() => []))])];
        if (names.length > 0) ctx.print(names.join('\n'));
        return 0;
      }),
    );
}

async function liveNames(socketPath: string, kind: NameKind): Promise<string[]> {
  const client = await SpoolClient.connect({ socketPath, connectTimeoutMs: CONNECT_TIMEOUT_MS, requestTimeoutMs: REQUEST_TIMEOUT_MS });
  try {
    switch (kind) {
      case 'queues':
        return (await client.call('queues.list')).queues.map((q) => q.name);
      case 'schedules':
        return (await client.call('schedules.list')).schedules.map((s) => s.name);
      case 'workers':
        return (await client.call('workers.list')).workers.map((w) => w.id);
      case 'workflows':
        return (await listWorkflows(client)).workflows.map((w) => w.name);
      case 'runs':
        return (await listRuns(client, { limit: 50 })).runs.map((r) => r.id);
    }
  } finally {
    client.close();
  }
}

/** The workflows of the jobs file in the current folder, read quietly: none when there is no file. */
function fileWorkflows(): string[] {
  for (const name of DEFAULT_FILES) {
    try {
      return parseJobsFile(fs.readFileSync(name, 'utf8')).workflows.map((w) => w.name);
    } catch {
      // No such file here: try the next name.
    }
  }
  return [];
}
