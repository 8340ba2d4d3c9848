/**
 * Human views of the queue's records: tables for lists, field blocks for one record. The
 * `--json` forms print the daemon's result unchanged instead.
 */
import { formatGroupWeights } from '../../shared/domain/groupWeights';
import { describeCron } from '../../shared/domain/cron';
import type { QueueStats, ScheduleResult, Stats } from '../../shared/protocol';
import { formatBackoff } from '../../shared/domain/backoff';
import { formatRate } from '../../shared/domain/rates';
import { dueCount, dueNoWorkerText, fireTime, jobReason, noWorkerText, stateSentence, uniquenessText, wallClockDiffers, type WaitingFacts } from '../../shared/domain/present';
import { formatLimits } from '../../shared/domain/resourceLimits';
import { describeRetryRule } from '../../shared/domain/rules/retry';
import type { Job, JobDependency, JobRun, JobState, Queue, Schedule, Worker } from '../../shared/protocol/types';
import type { Colors } from './color';
import { renderFields, renderTable, type Column } from './table';
import { formatDuration, formatRelative, formatTimestamp } from './time';

export function colorState(state: JobState | string, c: Colors): string {
  switch (state) {
    case 'completed':
      return c.green(state);
    case 'dead':
      return c.red(state);
    case 'running':
      return c.cyan(state);
    case 'retrying':
      return c.yellow(state);
    case 'cancelled':
      return c.dim(state);
    default:
      return state;
  }
}

function oneLine(s: string, max = 60): string {
  const line = s.replace(/\s+/g, ' ').trim();
  return line.length > max ? line.slice(0, max - 1) + '…' : line;
}

/**
 * Jobs, one per row. WEIGHT shows only when some job listed weighs more than the default 1.
 * `workers` (when they could be read): a due job that no live worker takes says so in its NOTE,
 * as its row in the Queues view does.
 */
export function jobsTable(jobs: readonly Job[], c: Colors, now = Date.now(), workers?: WaitingFacts['workers']): string {
  const weighted = jobs.some((j) => j.weight !== 1);
  return renderTable(
    jobs,
    [
      { header: 'ID', value: (j) => j.id },
      { header: 'QUEUE', value: (j) => j.queue },
      { header: 'KIND', value: (j) => j.kind },
      { header: 'STATE', value: (j) => colorState(j.state, c) },
      ...(weighted ? [{ header: 'WEIGHT', value: (j: Job) => String(j.weight), right: true }] : []),
      { header: 'TRIES', value: (j) => `${j.attempts}/${j.maxAttempts}`, right: true },
      { header: 'CREATED', value: (j) => formatRelative(j.createdAt, now) },
      // The reason the Queues view gives for the job's state, in the same words.
      { header: 'NOTE', value: (j) => c.dim(withNoWorker(jobReason(j, now), dueNoWorkerText(j, workers, now))) },
    ],
    c.bold,
  );
}

function withNoWorker(reason: string, noWorker: string | null): string {
  return noWorker === null ? reason : `${reason} · ${noWorker}`;
}

/**
 * Under `spool queues`: a line per queue and kind whose due jobs no live worker takes, in the
 * words of the Queues view ("images: due jobs wait: no worker takes kind resize on queue images
 * (the last one was seen 10m ago)"). `due`: per queue, the kinds of its due jobs.
 */
export function noWorkerNotes(due: ReadonlyMap<string, ReadonlySet<string>>, workers: WaitingFacts['workers'], now: number): string[] {
  const lines: string[] = [];
  for (const [queue, kinds] of due) {
    for (const kind of kinds) {
      const text = noWorkerText({ queue, kind }, workers, now);
      if (text !== null) lines.push(`${queue}: due jobs wait: ${text}.`);
    }
  }
  return lines;
}

/** A job's dependencies and dependents, as `spool job` lists them under its record. */
export interface JobRelations {
  dependencies: readonly JobDependency[];
  dependents: readonly JobDependency[];
}

/**
 * `waiting`: the job's queue and the workers; for a due job (queued, or retrying past its next
 * attempt's time) the record then says why it has not started, in the job page's words.
 */
export function jobDetails(job: Job, runs: readonly JobRun[], c: Colors, now = Date.now(), relations: JobRelations = { dependencies: [], dependents: [] }, waiting?: WaitingFacts): string {
  const when = (t: number | null): string => (t === null ? '-' : `${formatTimestamp(t)} (${formatRelative(t, now)})`);
  const fields: [string, string][] = [
    ['id', job.id],
    ['queue', job.queue],
    ['kind', job.kind],
    ['state', colorState(job.state, c) + (job.cancelRequested ? ' (cancel requested)' : '')],
    ['attempts', `${job.attempts}/${job.maxAttempts}`],
    ['priority', job.agedPriority == null ? String(job.priority) : `${job.priority} (counts as ${job.agedPriority} after its wait: its queue's ageing)`],
    ['weight', String(job.weight)],
    ['payload', JSON.stringify(job.payload)],
    ['created', when(job.createdAt)],
    ['run at', when(job.runAt)],
    ['started', when(job.startedAt)],
    ['finished', when(job.finishedAt)],
    ['timeout', formatDuration(job.timeoutMs)],
    ['backoff', formatBackoff(job.backoff)],
  ];
  if (job.workerId) fields.push(['worker', job.workerId]);
  if (job.leaseExpiresAt !== null) fields.push(['lease until', when(job.leaseExpiresAt)]);
  if (job.progress !== null) fields.push(['progress', `${job.progress}%${job.progressMessage ? ` ${job.progressMessage}` : ''}`]);
  if (job.group !== null) fields.push(['group', job.group]);
  if (job.tags.length > 0) fields.push(['tags', job.tags.join(', ')]);
  if (job.idempotencyKey) fields.push(['key', job.idempotencyKey]);
  if (job.uniqueness) fields.push([job.uniqueness.rule, uniquenessText(job.uniqueness)]);
  if (job.checkpoint !== null && job.checkpoint !== undefined) fields.push(['checkpoint', JSON.stringify(job.checkpoint)]);
  if (job.result !== null && job.result !== undefined) fields.push(['result', JSON.stringify(job.result)]);
  if (job.lastError) fields.push(['last error', c.red(job.lastError)]);
  if (job.retry) fields.push(['retry rule', describeRetryRule(job.retry)]);
  if (job.expiresAt != null) fields.push(['expires', `${when(job.expiresAt)} unless it has started`]);
  if (job.deadlineAt != null) fields.push(['deadline', `${when(job.deadlineAt)}: no retry after it`]);
  if (job.step !== null) fields.push(['step', job.step]);
  if (job.workflowRunId !== null) fields.push(['workflow run', job.workflowRunId]);
  if (job.state === 'blocked') fields.push(['waiting for', `${job.waitingFor} of the ${job.dependsOn} jobs it depends on`]);
  if (waiting !== undefined && (job.state === 'queued' || job.state === 'retrying') && job.runAt <= now) fields.push(['why', stateSentence(job, runs, now, waiting)]);
  const ctx = job.context;
  if (ctx) {
    const parts = [ctx.origin, ctx.workspace, ctx.branch, ctx.commit?.slice(0, 12)].filter((p) => p);
    if (parts.length > 0) fields.push(['context', parts.join(' ')]);
  }
  let text = renderFields(fields, c.dim);
  text += relationTable('DEPENDS ON', relations.dependencies, job.dependsOn, c);
  text += relationTable('DEPENDED ON BY', relations.dependents, job.dependents, c);
  if (runs.length > 0) {
    text +=
      '\n' +
      renderTable(
        runs,
        [
          { header: 'RUN', value: (r) => String(r.run), right: true },
          { header: 'ATTEMPT', value: (r) => String(r.attempt), right: true },
          { header: 'WORKER', value: (r) => r.workerId },
          { header: 'STARTED', value: (r) => formatRelative(r.startedAt, now) },
          { header: 'TOOK', value: (r) => (r.durationMs === null ? '-' : formatDuration(r.durationMs)) },
          { header: 'OUTCOME', value: (r) => colorOutcome(r.outcome, c) },
          { header: 'EXIT', value: (r) => (r.exitCode ?? r.httpStatus ?? completedCode(job, r, runs) ?? '-').toString() },
          { header: 'ERROR', value: (r) => oneLine(r.error ?? '', 80) },
        ],
        c.bold,
      );
  }
  return text;
}

/** Jobs at the other end of a dependency, under a heading that says which end (empty when none). */
function relationTable(heading: string, jobs: readonly JobDependency[], total: number, c: Colors): string {
  if (jobs.length === 0) return '';
  const more = total > jobs.length ? `\n${c.dim(`… and ${total - jobs.length} more`)}` : '';
  return (
    '\n' +
    renderTable(
      jobs,
      [
        { header: heading, value: (d) => d.id },
        { header: 'ON', value: (d) => d.on },
        { header: 'STATE', value: (d) => colorState(d.state, c) },
        { header: 'QUEUE', value: (d) => d.queue },
        { header: 'STEP', value: (d) => d.step ?? '-' },
        { header: 'RESULT', value: (d) => (d.result === null || d.result === undefined ? '-' : oneLine(JSON.stringify(d.result), 60)) },
      ],
      c.bold,
    ) +
    more
  );
}

/**
 * A completed run records no exit code or status of its own (it failed nothing): for the run that
 * completed the job, the result says it where a command or a request produced it: `{exitCode: 0}`
 * from a shell job or `spool work`, `{status: 200, …}` from an http job.
 */
function completedCode(job: Job, run: JobRun, runs: readonly JobRun[]): number | null {
  if (run.outcome !== 'completed' || job.state !== 'completed' || run !== runs[runs.length - 1]) return null;
  const result: unknown = job.result;
  if (typeof result !== 'object' || result === null) return null;
  const code = 'exitCode' in result ? result.exitCode : job.kind === 'http' && 'status' in result ? result.status : null;
  return typeof code === 'number' ? code : null;
}

function colorOutcome(outcome: JobRun['outcome'], c: Colors): string {
  if (outcome === 'completed') return c.green(outcome);
  if (outcome === 'running') return c.cyan(outcome);
  if (outcome === 'cancelled' || outcome === 'interrupted') return c.dim(outcome);
  return c.red(outcome);
}

/**
 * The count columns of `spool queues` and `spool stats`, one per state. QUEUED counts the jobs
 * that are due; DELAYED the queued ones whose start time is still ahead (the protocol counts
 * them inside `queued` as well, so they are taken out here rather than shown twice).
 */
function countColumns<T extends QueueStats>(c: Colors): Column<T>[] {
  return [
    { header: 'QUEUED', value: (q) => String(dueCount(q.counts, q.delayed)), right: true },
    { header: 'DELAYED', value: (q) => String(q.delayed), right: true },
    { header: 'RUNNING', value: (q) => String(q.counts.running), right: true },
    { header: 'RETRYING', value: (q) => String(q.counts.retrying), right: true },
    { header: 'DEAD', value: (q) => (q.counts.dead > 0 ? c.red(String(q.counts.dead)) : '0'), right: true },
    { header: 'COMPLETED', value: (q) => String(q.counts.completed), right: true },
    { header: 'CANCELLED', value: (q) => String(q.counts.cancelled), right: true },
  ];
}

export function queuesTable(queues: readonly Queue[], c: Colors): string {
  return renderTable(
    queues,
    [
      { header: 'QUEUE', value: (q) => q.name },
      { header: 'STATUS', value: (q) => (q.paused ? c.yellow('paused') : 'active') },
      ...countColumns(c),
      { header: 'CONCURRENCY', value: (q) => (q.concurrency === null ? '-' : String(q.concurrency)), right: true },
      { header: 'RATE', value: (q) => (q.rateLimit ? formatRate(q.rateLimit, false) : '-') },
    ],
    c.bold,
  );
}

/** A grouped queue's group settings, as `spool queue NAME` shows them. */
function groupFields(q: Queue): [string, string][] {
  return [
    ['group concurrency', q.groupConcurrency === null ? 'no limit' : String(q.groupConcurrency)],
    ['group rate', q.groupRate ? formatRate(q.groupRate) : 'none'],
    ['group weights', q.groupWeights === null ? 'none (round-robin)' : formatGroupWeights(q.groupWeights)],
  ];
}

export function queueDetails(q: Queue, c: Colors): string {
  const b = q.defaultBackoff;
  return renderFields(
    [
      ['queue', q.name],
      ['status', q.paused ? c.yellow('paused') : 'active'],
      // As in `spool queues`: queued counts the due jobs, delayed the ones whose time is ahead.
      ['jobs', Object.entries({ ...q.counts, queued: dueCount(q.counts, q.delayed) }).map(([state, n]) => `${state} ${n}`).join(', ') + `; delayed ${q.delayed}`],
      ['concurrency', q.concurrency === null ? 'no limit' : String(q.concurrency)],
      ['rate limit', q.rateLimit ? formatRate(q.rateLimit) : 'none'],
      ...(q.grouped || q.groupConcurrency !== null || q.groupRate !== null
        ? groupFields(q)
        : []),
      ['attempts', String(q.defaultMaxAttempts)],
      ['backoff', formatBackoff(b)],
      ['timeout', formatDuration(q.defaultTimeoutMs)],
      ['retention', q.retentionMs === null ? 'forever' : q.retentionMs === 0 ? 'none: finished jobs are deleted at the next cleanup' : formatDuration(q.retentionMs)],
      ['shell limits', formatLimits(q.limits)],
      ...(q.retry ? [['retry rule', describeRetryRule(q.retry)] as [string, string]] : []),
      ...(q.defaultExpireAfterMs != null ? [['expire after', `${formatDuration(q.defaultExpireAfterMs)} unless started`] as [string, string]] : []),
      ['priority ageing', q.ageing ?? 'off'],
      ['created', formatTimestamp(q.createdAt)],
    ],
    c.dim,
  );
}

function describeTemplate(s: Schedule): string {
  if (s.workflow !== undefined) return `workflow: ${s.workflow}`;
  const p = s.job.payload;
  if (s.job.kind === 'shell' && typeof p === 'object' && p !== null && 'command' in p && typeof p.command === 'string') return `shell: ${oneLine(p.command, 40)}`;
  if (s.job.kind === 'http' && typeof p === 'object' && p !== null && 'url' in p && typeof p.url === 'string') return `http: ${p.url}`;
  return s.job.kind;
}

export function schedulesTable(schedules: readonly Schedule[], c: Colors, now = Date.now()): string {
  return renderTable(
    schedules,
    [
      { header: 'SCHEDULE', value: (s) => s.name },
      { header: 'CRON', value: (s) => s.cron },
      { header: 'TZ', value: (s) => s.timezone },
      { header: 'QUEUE', value: (s) => (s.workflow !== undefined ? '-' : s.queue) },
      { header: 'ENABLED', value: (s) => (s.enabled ? 'yes' : c.yellow('no')) },
      { header: 'NEXT', value: (s) => (s.enabled ? formatRelative(s.nextRunAt, now) : '-') },
      { header: 'LAST', value: (s) => formatRelative(s.lastRunAt, now) },
      { header: 'JOB', value: (s) => describeTemplate(s) },
    ],
    c.bold,
  );
}

/**
 * `Tue 24 Nov 2026 03:00 CET, ` when the schedule's time zone shows another wall-clock time than
 * the local one the timestamp is written in, so that a cron of "0 3 * * *" reads as 03:00 where
 * it counts; empty when both show the same date and time.
 */
export function inZone(at: number, timezone: string): string {
  return wallClockDiffers(at, timezone) ? `${fireTime(at, timezone)}, ` : '';
}

export function scheduleDetails(result: ScheduleResult, c: Colors, now = Date.now()): string {
  const s = result.schedule;
  return renderFields(
    [
      ['schedule', s.name],
      // The expression in words, as the extension's Schedules view shows it.
      ['cron', `${s.cron} (${s.timezone}): ${describeCron(s.cron)}`],
      ...(s.workflow !== undefined
        ? ([
            ['workflow', `${s.workflow}${Object.keys(s.params ?? {}).length > 0 ? ` ${Object.entries(s.params ?? {}).map(([k, v]) => `${k}=${v}`).join(' ')}` : ''}`],
            ['last workflow run', s.lastRunId ?? 'none yet'],
          ] as [string, string][])
        : ([
            ['queue', s.queue],
            ['job', `${s.job.kind} ${JSON.stringify(s.job.payload ?? null)}`],
          ] as [string, string][])),
      ['enabled', s.enabled ? 'yes' : c.yellow('no')],
      ['missed runs', s.missedPolicy === 'runOnce' ? 'run once' : 'skip'],
      // A tick that enqueued a job; `schedule run` enqueues one too but is no tick.
      ['last run', s.lastRunAt === null ? 'never' : `${formatTimestamp(s.lastRunAt)} (${formatRelative(s.lastRunAt, now)})`],
      ['last job', s.lastJobId ?? 'none yet (by a tick or spool schedule run)'],
      ['next runs', s.enabled ? result.nextRuns.map((t) => `${formatTimestamp(t)} (${inZone(t, s.timezone)}${formatRelative(t, now)})`).join('\n') || '-' : 'none while disabled'],
    ],
    c.dim,
  );
}

export function workersTable(workers: readonly Worker[], c: Colors, now = Date.now()): string {
  return renderTable(
    workers,
    [
      { header: 'WORKER', value: (w) => w.id },
      { header: 'TYPE', value: (w) => w.type },
      { header: 'STATUS', value: (w) => (w.alive ? c.green('alive') : c.dim('gone')) },
      { header: 'HOST', value: (w) => [w.host, w.pid].filter((p) => p !== null).join(':') || '-' },
      { header: 'QUEUES', value: (w) => (w.queues.length ? w.queues.join(',') : '*') },
      { header: 'KINDS', value: (w) => (w.kinds.length ? w.kinds.join(',') : '*') },
      { header: 'RUNNING', value: (w) => `${w.runningJobIds.length}${w.concurrency !== null ? `/${w.concurrency}` : ''}`, right: true },
      // The most job weight the worker holds at once (spool work --capacity); '-' when it declared none.
      { header: 'CAPACITY', value: (w) => (w.capacity === null ? '-' : String(w.capacity)), right: true },
      { header: 'SEEN', value: (w) => formatRelative(w.lastHeartbeatAt, now) },
    ],
    c.bold,
  );
}

export function statsView(stats: Stats, c: Colors): string {
  const t = stats.totals;
  // The totals carry no delayed count of their own: the queues' add up to it.
  const delayed = stats.queues.reduce((sum, q) => sum + q.delayed, 0);
  const head =
    `${c.bold('running')} ${t.running}  ${c.bold('queued')} ${dueCount(t, delayed)}  ${c.bold('delayed')} ${delayed}  ${c.bold('retrying')} ${t.retrying}  ` +
    `${c.bold('dead')} ${t.dead > 0 ? c.red(String(t.dead)) : '0'}  ${c.bold('completed')} ${t.completed}  ${c.bold('cancelled')} ${t.cancelled}\n` +
    `last minute: ${stats.completedLastMinute} completed, ${stats.failedLastMinute} failed   ` +
    `last hour: ${stats.completedLastHour} completed, ${stats.failedLastHour} failed\n`;
  if (stats.queues.length === 0) return head + '\nNo queues yet. Enqueue a job: spool enqueue default --shell "echo hello"\n';
  return (
    head +
    '\n' +
    renderTable(
      stats.queues,
      [
        { header: 'QUEUE', value: (q) => q.name + (q.paused ? c.yellow(' (paused)') : '') },
        ...countColumns(c),
      ],
      c.bold,
    )
  );
}
