/**
 * `spool work <queue> --exec "<command>"`: a worker process for quick scripting. Each job runs
 * the command with `/bin/sh -c` in its own process group (shared/client/processGroup.ts, the
 * runner the daemon's shell executor uses too); the payload arrives on stdin (JSON)
 * and in SPOOL_JOB_PAYLOAD; stdout and stderr become the job's output, `::spool` report lines its
 * progress and checkpoint; exit 0 completes the job, any other status fails it (permanently for
 * the codes given to --permanent-exit) — output, reports and the failure's message are
 * shared/client/shellJob.ts's, the same as the daemon's shell executor's. A cancel, or
 * a command running past the job's `timeoutMs` (as the daemon's shell executor bounds its
 * jobs), stops the command: SIGTERM to its group, SIGKILL after a grace period. When the shell
 * exits, what it left running in its group is killed. A second SIGTERM or Ctrl-C SIGKILLs every
 * command's group at once, hands their jobs back and exits. One line per finished job goes to
 * stderr unless --quiet.
 */
import type { Command } from 'commander';
import { SpoolClient } from '../../shared/client/client';
import { dependencyEnvironment, inheritedEnvironment, jobEnvironment } from '../../shared/client/jobEnv';
import { runProcessGroup } from '../../shared/client/processGroup';
import { JobOutput, shellJobOutcome } from '../../shared/client/shellJob';
import { ErrorCode, LIMITS, NAME_PATTERN } from '../../shared/protocol';
import { isSpoolError } from '../../shared/protocol/errors';
import type { ClaimedJob } from '../../shared/protocol/types';
import { runWorker, type WorkContext } from '../../shared/client/worker';
import { DEFAULT_KILL_GRACE_MS } from '../../shared/client/daemonOptions';
import { action, arg } from '../action';
import type { CliContext } from '../context';
import { CliError } from '../errors';
import { parseKillAfter } from '../parse/duration';
import { formatDuration } from '../format/time';
import { collect, parseInteger } from '../parse/values';
import { unknownQueueNote } from '../hints';
import { errorMessage } from '../../shared/protocol/errors';

type WorkOptions = {
  exec?: string;
  kind?: string[];
  concurrency?: string;
  capacity?: string;
  permanentExit?: string;
  killAfter?: string;
  workerId?: string;
  quiet?: boolean;
};

export function registerWork(program: Command): void {
  program
    .command('work')
    .description('Run a worker that executes a command for each job of a queue')
    .argument('<queue>', 'the queue to take jobs from (comma-separated for several)')
    .requiredOption('-e, --exec <command>', 'the command to run per job (/bin/sh -c); the payload is on its stdin')
    .option('-k, --kind <kind>', 'only jobs of this kind (repeatable; default every kind but shell and http)', collect)
    .option('-c, --concurrency <n>', 'jobs at once (default 1, or the capacity when --capacity is given)')
    .option('--capacity <n>', 'the most job weight held at once: a job of weight 4 (enqueue --weight 4) takes 4 of it')
    .option('--permanent-exit <codes>', 'exit codes that fail the job for good, no retries, e.g. 2,64')
    .option('--kill-after <duration>', 'after a cancel or a timeout, SIGKILL the command if SIGTERM has not stopped it within this (default 5s)')
    .option('--worker-id <id>', 'the id shown in `spool workers` (default chosen by the daemon)')
    .option('--quiet', 'print no line per finished job')
    .addHelpText(
      'after',
      `
The command gets, besides the payload on stdin:
  SPOOL_JOB_ID, SPOOL_JOB_QUEUE, SPOOL_JOB_KIND, SPOOL_JOB_ATTEMPT, SPOOL_JOB_MAX_ATTEMPTS,
  SPOOL_JOB_PAYLOAD (JSON), SPOOL_JOB_CHECKPOINT (JSON, when a previous attempt saved one),
  SPOOL_WORKER_ID and SPOOL_SOCKET.
A command still running after the job's timeout (enqueue --timeout; the queue's default, 5m
unless set) is stopped like a cancelled one and the attempt fails.
SIGTERM or Ctrl-C lets running jobs finish and claims no more; a second one kills the running
commands (SIGKILL to their process groups), hands their jobs back to run again (no attempt used
up) and exits with status 130 (SIGINT) or 143 (SIGTERM).

Examples:
  spool work images --kind resize --exec 'jq -r .path | xargs ./resize.sh'
  spool work mail --exec 'python3 send.py' --concurrency 4 --permanent-exit 2
  spool work video --exec ./encode.sh --capacity 4`,
    )
    .action(action<WorkOptions>((ctx, args, o) => work(ctx, arg(args, 0), o)));
}

async function work(ctx: CliContext, queueArg: string, o: WorkOptions): Promise<number> {
  const command = o.exec ?? '';
  const permanentCodes = new Set((o.permanentExit ?? '').split(',').filter((s) => s.trim() !== '').map((s) => parseInteger(s.trim(), '--permanent-exit', 1, 255)));
  const killAfterMs = o.killAfter !== undefined ? parseKillAfter(o.killAfter) : DEFAULT_KILL_GRACE_MS;
  const capacity = o.capacity !== undefined ? parseInteger(o.capacity, '--capacity', 1, LIMITS.maxCapacity) : undefined;
  // With a capacity and no --concurrency, as many jobs run at once as the capacity lets in: four
  // jobs of weight 1 in a capacity of 4, or one of weight 4.
  const concurrency = o.concurrency !== undefined ? parseInteger(o.concurrency, '--concurrency', 1, 1000) : Math.min(capacity ?? 1, 1000);
  const queues = queueArg.split(',').filter((q) => q !== '');
  if (queues.length === 0) throw new CliError('Name the queue to work on: spool work <queue> --exec "<command>".');
  for (const queue of queues) {
    if (!NAME_PATTERN.test(queue)) {
      throw new CliError(`"${queue}" is not a queue name: use 1 to 128 letters, digits, '.', '_', ':' or '-', starting with a letter or digit.`);
    }
  }
  // Its own reconnecting client: a worker outlives a daemon restart and registers again.
  const client = await SpoolClient.connect({ ...ctx.connectOptions(), reconnect: true });
  try {
    await client.handshake();
    return await serve(ctx, client, queueArg, queues, command, o, { concurrency, capacity }, permanentCodes, killAfterMs);
  } finally {
    client.close();
  }
}

async function serve(
  ctx: CliContext,
  client: SpoolClient,
  queueArg: string,
  queues: string[],
  command: string,
  o: WorkOptions,
  limits: { concurrency: number; capacity: number | undefined },
  permanentCodes: Set<number>,
  killAfterMs: number,
): Promise<number> {
  client.onStateChange((state) => {
    if (state === 'disconnected') ctx.note('spool work: lost the daemon; reconnecting…');
    if (state === 'connected') ctx.note('spool work: reconnected.');
  });
  const worker = await runWorker({
    client,
    queues,
    kinds: o.kind ?? [],
    concurrency: limits.concurrency,
    ...(limits.capacity === undefined ? {} : { capacity: limits.capacity }),
    handleSignals: true,
    name: `spool work ${queueArg}`,
    ...(o.workerId ? { workerId: o.workerId } : {}),
    handler: async (job, wctx) => {
      const started = Date.now();
      const report = (how: string): void => {
        if (!o.quiet) ctx.note(`spool work: job ${job.id} (${job.kind}, attempt ${job.attempts} of ${job.maxAttempts}): ${how}`);
      };
      try {
        const result = await runCommand(client, ctx.socketPath, command, job, wctx, permanentCodes, killAfterMs);
        report(`the command succeeded in ${formatDuration(Date.now() - started)}`);
        return result;
      } catch (error) {
        const took = formatDuration(Date.now() - started);
        // Stopped hard, the job is handed back to run again; the worker says so itself.
        if (wctx.hardStop.aborted) report(`the command was killed after ${took}; the job is handed back`);
        else report(`the command failed after ${took}: ${errorMessage(error)}`);
        throw error;
      }
    },
    onError: (error, job) => ctx.note(`spool work: ${job ? `job ${job.id}: ` : ''}${error.message}`),
  });
  ctx.note(`Worker ${worker.workerId} is taking jobs from ${queues.join(', ')}; Ctrl-C to stop.`);
  const unknown = await unknownQueueNote(client, queues).catch(() => null);
  if (unknown !== null) ctx.note(`${unknown} It waits for that queue's first job.`);
  try {
    await worker.done;
  } catch (error) {
    // A refused token is final (revoked while the worker ran): say so instead of reconnecting forever.
    if (isSpoolError(error) && error.code === ErrorCode.Unauthorized) {
      throw new CliError(`the daemon refused this worker's token when it reconnected, so the worker stopped. ${error.message}`);
    }
    throw error;
  }
  return 0;
}

class CommandFailed extends Error {
  constructor(
    message: string,
    readonly exitCode: number | undefined,
    readonly permanent: boolean,
  ) {
    super(message);
  }
}

function runCommand(
  client: SpoolClient,
  socketPath: string,
  command: string,
  job: ClaimedJob,
  wctx: WorkContext,
  permanentCodes: Set<number>,
  killAfterMs: number,
): Promise<unknown> {
  const payload = JSON.stringify(job.payload ?? null);
  // The environment the daemon's shell jobs get too (shared/client/jobEnv.ts).
  const dependencies = dependencyEnvironment(job);
  const env: NodeJS.ProcessEnv = { ...inheritedEnvironment(process.env), ...jobEnvironment(job, wctx.workerId, socketPath), ...dependencies.env };
  const output = jobOutput(client, job.id, wctx.workerId);
  // The runner the daemon's shell executor uses: its own process group, so a cancel reaches the
  // command's children too; the job's lease length bounds the command, as it bounds the daemon's
  // own shell jobs (the worker's heartbeats would otherwise keep a hung command's lease alive
  // forever); what the shell leaves running is killed when it exits.
  const group = runProcessGroup<'abort'>({
    command,
    env,
    stdin: payload,
    jobId: job.id,
    timeoutMs: job.timeoutMs,
    killGraceMs: killAfterMs,
    onOutput: (stream, chunk) => output.write(stream, chunk),
    // Told to the job's output, where whoever looks at the job will see it.
    onProblem: (message) => output.log(message),
  });
  // A second signal: the worker exits within moments, and a command in its own process group
  // would outlive it, so it is killed at once, even if a cancel's SIGTERM is still being given time.
  const kill = (): void => group.kill();
  const onAbort = (): void => group.stop('abort');
  if (wctx.hardStop.aborted) kill();
  else wctx.hardStop.addEventListener('abort', kill, { once: true });
  if (wctx.signal.aborted) onAbort();
  else wctx.signal.addEventListener('abort', onAbort, { once: true });

  return group.done.then(async (exit) => {
    dependencies.remove();
    wctx.signal.removeEventListener('abort', onAbort);
    wctx.hardStop.removeEventListener('abort', kill);
    await output.flush();
    // The daemon's shell executor words its outcomes alike (shared/client/shellJob.ts).
    const outcome = shellJobOutcome(exit, { timeoutMs: job.timeoutMs, permanentExitCodes: [...permanentCodes], stderrTail: output.tail(), result: output.result() });
    if (outcome.kind === 'completed') return outcome.result;
    if (outcome.kind === 'stopped') throw new CommandFailed(`Stopped: ${describeAbort(wctx.signal)}`, exit.code ?? undefined, false);
    throw new CommandFailed(outcome.error, outcome.exitCode, outcome.permanent);
  });
}

function describeAbort(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason.message : 'the job was cancelled';
}

/**
 * The job's output, sent to the daemon under this worker's lease: lines as `jobs.log` calls (at
 * most LIMITS.maxBatch lines each, the most one call takes), reports as `jobs.progress` and
 * `jobs.checkpoint`.
 */
function jobOutput(client: SpoolClient, jobId: string, workerId: string): JobOutput {
  return new JobOutput(
    {
      append: async (stream, lines) => {
        try {
          await client.call('jobs.log', { id: jobId, workerId, stream, lines });
        } catch (error) {
          // Output is a convenience; losing some (the lease was lost, the daemon restarted) must not fail the job.
          process.stderr.write(`spool work: job ${jobId}: could not save ${lines.length} output line(s): ${errorMessage(error)}\n`);
        }
      },
      record: async (report) => {
        if (report.kind === 'progress') {
          await client.call('jobs.progress', { id: jobId, workerId, percent: report.percent, ...(report.message !== null ? { message: report.message } : {}) });
        } else {
          await client.call('jobs.checkpoint', { id: jobId, workerId, checkpoint: report.checkpoint });
        }
      },
      // append tells its own failures above, and the worker goes on.
      onError: () => undefined,
    },
    { flushDelayMs: 50, maxBatch: LIMITS.maxBatch },
  );
}
