/**
 * Rows → the statements' row types, for both stores: the only place that knows both the column
 * names and the shapes the statements return (./statements/). The engine never imports it.
 */
import type { ResourceLimits, Backoff, BackoffStrategy, Job, JobContext, JobRun, JobState, MissedRunPolicy, OutputLine, OutputStream, RunOutcome, Schedule, Worker, WorkerType } from '../../shared/protocol/types';
import { DEPENDENCY_CONDITIONS, JOB_STATES, UNIQUE_KEY_PARTS, UNIQUE_WHILE, type JobDependency, type JobUniqueness, type UniqueKeyPart } from '../../shared/protocol/types';
import { isRecord } from '../../shared/domain/records';
import type { StoredDependency } from './statements/dependencies';
import type { OverlapPolicy } from '../../shared/jobsfile';
import type { DaemonInstance } from './statements/daemons';
import type { ManagedType, Ownership, StoredTemplate } from './statements/projects';
import type { StoredToken } from './statements/tokens';
import type { StoredWorkflow, StoredWorkflowRun } from './statements/workflows';
import { WORKFLOW_RUN_STATES } from '../../shared/protocol/workflows';
import type { TokenScope } from '../../shared/protocol';
import type { JobInsert } from './statements/jobs';
import type { CompletedJob } from './statements/attempts';
import type { StoredQueue } from './statements/queues';
import type { StoredSchedule } from './statements/schedules';
import type { RetryRule } from '../../shared/protocol/types';
import { retryRule } from '../../shared/domain/rules/retry';
import { formatAgeing } from '../../shared/domain/ageing';
import { bool, int, intOrNull, json, real, stringArray, text, textOrNull, type Row } from './rows';

const STRATEGIES: readonly BackoffStrategy[] = ['exponential', 'linear', 'fixed'];
const OUTCOMES: readonly RunOutcome[] = ['running', 'completed', 'failed', 'lease_expired', 'cancelled', 'interrupted'];
const STREAMS: readonly OutputStream[] = ['stdout', 'stderr', 'log', 'marker'];

export function oneOfColumn<T extends string>(row: Row, column: string, allowed: readonly T[]): T {
  return oneOfValue(text(row, column), column, allowed);
}

function oneOfValue<T extends string>(v: string, column: string, allowed: readonly T[]): T {
  const found = allowed.find((a) => a === v);
  if (found === undefined) throw new Error(`Column ${column} holds ${JSON.stringify(v)}, not one of ${allowed.join(', ')}`);
  return found;
}

export function jobState(row: Row, column = 'state'): JobState {
  return oneOfColumn(row, column, JOB_STATES);
}

export function backoffOf(row: Row): Backoff {
  return {
    strategy: oneOfColumn(row, 'backoff_strategy', STRATEGIES),
    baseMs: int(row, 'backoff_base_ms'),
    capMs: int(row, 'backoff_cap_ms'),
    jitter: real(row, 'backoff_jitter'),
  };
}

function contextOf(row: Row): JobContext | null {
  return contextFrom(json(row, 'context'));
}

function contextFrom(v: unknown): JobContext | null {
  if (typeof v !== 'object' || v === null) return null;
  const context: JobContext = {};
  for (const key of ['workspace', 'branch', 'commit', 'origin'] as const) {
    const field: unknown = Reflect.get(v, key);
    if (typeof field === 'string') context[key] = field;
  }
  return context;
}

export function mapJob(row: Row): Job {
  return {
    id: text(row, 'id'),
    queue: text(row, 'queue'),
    kind: text(row, 'kind'),
    payload: json(row, 'payload'),
    // While ageing has raised `priority` (what claims order by), `priority_set` keeps the
    // priority that was set, which is what the job shows as its own.
    priority: prioritySet(row) ?? int(row, 'priority'),
    weight: int(row, 'weight'),
    state: jobState(row),
    runAt: int(row, 'run_at'),
    attempts: int(row, 'attempts'),
    maxAttempts: int(row, 'max_attempts'),
    backoff: backoffOf(row),
    timeoutMs: int(row, 'timeout_ms'),
    leaseExpiresAt: intOrNull(row, 'lease_expires_at'),
    workerId: textOrNull(row, 'worker_id'),
    idempotencyKey: textOrNull(row, 'idempotency_key'),
    progress: intOrNull(row, 'progress'),
    progressMessage: textOrNull(row, 'progress_message'),
    checkpoint: json(row, 'checkpoint'),
    result: json(row, 'result'),
    lastError: textOrNull(row, 'last_error'),
    cancelRequested: bool(row, 'cancel_requested'),
    tags: stringArray(row, 'tags'),
    context: contextOf(row),
    createdAt: int(row, 'created_at'),
    updatedAt: int(row, 'updated_at'),
    startedAt: intOrNull(row, 'started_at'),
    finishedAt: intOrNull(row, 'finished_at'),
    dependsOn: int(row, 'depends_on'),
    waitingFor: int(row, 'waiting_for'),
    dependents: int(row, 'dependents'),
    step: textOrNull(row, 'step'),
    workflowRunId: textOrNull(row, 'workflow_run_id'),
    group: groupOf(textOrNull(row, 'group_key')),
    uniqueness: uniquenessFrom(row.get('uniqueness')),
    retry: retryRuleOf(textOrNull(row, 'retry_rule')),
    expiresAt: intOrNull(row, 'expire_at'),
    deadlineAt: intOrNull(row, 'deadline_at'),
    // Only a running job is paused: a value left from an attempt that ended means nothing.
    // A statement that does not select the column reads as not paused.
    pausedAt: jobState(row) === 'running' && row.get('paused_at') !== undefined ? intOrNull(row, 'paused_at') : null,
    agedPriority: prioritySet(row) === null ? null : int(row, 'priority'),
  };
}

/** How each field of a job is read from its row: the columns it needs and the reading. */
type FieldReader<K extends keyof Job> = { columns: readonly string[]; read(row: Row): Job[K] };

/**
 * Every field of a job, as mapJob reads it, for a claim that reads back only some fields
 * (claimReadBack). Complete by its type: a field added to Job does not compile until it is here.
 * mapJob stays an object literal of its own: it maps every row of a listing or a whole claim, and
 * builds each job faster than a loop over this table would.
 */
const JOB_FIELD_READERS: { [K in keyof Job]-?: FieldReader<K> } = {
  id: { columns: ['id'], read: (r) => text(r, 'id') },
  queue: { columns: ['queue'], read: (r) => text(r, 'queue') },
  kind: { columns: ['kind'], read: (r) => text(r, 'kind') },
  payload: { columns: ['payload'], read: (r) => json(r, 'payload') },
  priority: { columns: ['priority', 'priority_set'], read: (r) => prioritySet(r) ?? int(r, 'priority') },
  weight: { columns: ['weight'], read: (r) => int(r, 'weight') },
  state: { columns: ['state'], read: (r) => jobState(r) },
  runAt: { columns: ['run_at'], read: (r) => int(r, 'run_at') },
  attempts: { columns: ['attempts'], read: (r) => int(r, 'attempts') },
  maxAttempts: { columns: ['max_attempts'], read: (r) => int(r, 'max_attempts') },
  backoff: { columns: ['backoff_strategy', 'backoff_base_ms', 'backoff_cap_ms', 'backoff_jitter'], read: backoffOf },
  timeoutMs: { columns: ['timeout_ms'], read: (r) => int(r, 'timeout_ms') },
  leaseExpiresAt: { columns: ['lease_expires_at'], read: (r) => intOrNull(r, 'lease_expires_at') },
  workerId: { columns: ['worker_id'], read: (r) => textOrNull(r, 'worker_id') },
  idempotencyKey: { columns: ['idempotency_key'], read: (r) => textOrNull(r, 'idempotency_key') },
  progress: { columns: ['progress'], read: (r) => intOrNull(r, 'progress') },
  progressMessage: { columns: ['progress_message'], read: (r) => textOrNull(r, 'progress_message') },
  checkpoint: { columns: ['checkpoint'], read: (r) => json(r, 'checkpoint') },
  result: { columns: ['result'], read: (r) => json(r, 'result') },
  lastError: { columns: ['last_error'], read: (r) => textOrNull(r, 'last_error') },
  cancelRequested: { columns: ['cancel_requested'], read: (r) => bool(r, 'cancel_requested') },
  tags: { columns: ['tags'], read: (r) => stringArray(r, 'tags') },
  context: { columns: ['context'], read: contextOf },
  createdAt: { columns: ['created_at'], read: (r) => int(r, 'created_at') },
  updatedAt: { columns: ['updated_at'], read: (r) => int(r, 'updated_at') },
  startedAt: { columns: ['started_at'], read: (r) => intOrNull(r, 'started_at') },
  finishedAt: { columns: ['finished_at'], read: (r) => intOrNull(r, 'finished_at') },
  dependsOn: { columns: ['depends_on'], read: (r) => int(r, 'depends_on') },
  waitingFor: { columns: ['waiting_for'], read: (r) => int(r, 'waiting_for') },
  dependents: { columns: ['dependents'], read: (r) => int(r, 'dependents') },
  step: { columns: ['step'], read: (r) => textOrNull(r, 'step') },
  workflowRunId: { columns: ['workflow_run_id'], read: (r) => textOrNull(r, 'workflow_run_id') },
  group: { columns: ['group_key'], read: (r) => groupOf(textOrNull(r, 'group_key')) },
  uniqueness: { columns: ['uniqueness'], read: (r) => uniquenessFrom(r.get('uniqueness')) },
  retry: { columns: ['retry_rule'], read: (r) => retryRuleOf(textOrNull(r, 'retry_rule')) },
  expiresAt: { columns: ['expire_at'], read: (r) => intOrNull(r, 'expire_at') },
  deadlineAt: { columns: ['deadline_at'], read: (r) => intOrNull(r, 'deadline_at') },
  pausedAt: { columns: ['paused_at', 'state'], read: (r) => (jobState(r) === 'running' ? intOrNull(r, 'paused_at') : null) },
  agedPriority: { columns: ['priority', 'priority_set'], read: (r) => (prioritySet(r) === null ? null : int(r, 'priority')) },
};

/**
 * What the engine reads of every job it claims (the change event, the history, the claim order
 * and the budget, the dependencies, the lease's timer), besides what the claim sets itself.
 */
const CLAIM_ENGINE_FIELDS = ['id', 'queue', 'kind', 'payload', 'checkpoint', 'priority', 'weight', 'runAt', 'attempts', 'maxAttempts', 'workflowRunId', 'createdAt', 'dependsOn', 'leaseExpiresAt'] as const satisfies readonly (keyof Job)[];

/** The fields every claim sets to the same value (the UPDATE of both stores' claim statements), so not read back. */
type ClaimSetField = 'state' | 'workerId' | 'progress' | 'progressMessage' | 'cancelRequested' | 'pausedAt' | 'updatedAt' | 'startedAt' | 'finishedAt' | 'expiresAt';
const CLAIM_SET_FIELDS: readonly ClaimSetField[] = ['state', 'workerId', 'progress', 'progressMessage', 'cancelRequested', 'pausedAt', 'updatedAt', 'startedAt', 'finishedAt', 'expiresAt'];

/**
 * What a claim reads back when its claimer named the fields it wants (`jobs.claim`'s `fields`):
 * the columns of those fields and of what the engine reads, instead of the whole row. Reading a
 * column back costs the claim about a quarter of a microsecond per job on SQLite, and a job has
 * nearly fifty.
 */
export interface ClaimReadBack {
  /** The RETURNING list's columns, in one order whatever the order of the fields (a prepared statement's key). */
  readonly columns: readonly string[];
  /** The columns as a RETURNING list. */
  readonly list: string;
  /** The named fields that are neither the engine's nor set by the claim: read from their columns. */
  readonly extra: readonly (keyof Job)[];
}

const readBacks = new Map<string, ClaimReadBack>();
/** Distinct `fields` lists remembered; more (a client varying them) start the memory afresh. */
const READ_BACKS_KEPT = 256;

/** The read-back of a claim whose claimer named `fields`; null (the whole row) when it named none. */
export function claimReadBack(fields: readonly (keyof Job)[] | undefined): ClaimReadBack | null {
  if (fields === undefined) return null;
  const key = fields.join(',');
  const known = readBacks.get(key);
  if (known !== undefined) return known;
  const engine: readonly (keyof Job)[] = CLAIM_ENGINE_FIELDS;
  const set: readonly (keyof Job)[] = CLAIM_SET_FIELDS;
  const extra = [...new Set(fields)].filter((f) => !engine.includes(f) && !set.includes(f));
  const wanted = new Set<string>(['claimed_from']);
  for (const field of [...engine, ...extra]) for (const column of JOB_FIELD_READERS[field].columns) wanted.add(column);
  // In the order of the readers, so that the same columns make the same statement.
  const columns: string[] = [];
  for (const reader of Object.values(JOB_FIELD_READERS)) for (const column of reader.columns) if (wanted.has(column) && !columns.includes(column)) columns.push(column);
  columns.push('claimed_from');
  const readBack: ClaimReadBack = { columns, list: columns.join(', '), extra };
  if (readBacks.size >= READ_BACKS_KEPT) readBacks.clear();
  readBacks.set(key, readBack);
  return readBack;
}

/**
 * A job a claim took, from a row of `readBack.columns`: the engine's fields, what the claim set
 * (running, leased to `workerId` at `now`), and the named fields. The fields nobody named are
 * absent: the answer sends only the named ones (as pickFields does), and the engine reads none
 * of the others.
 */
export function mapClaimedJob(row: Row, readBack: ClaimReadBack, now: number, workerId: string): Job {
  const job: Partial<Record<keyof Job, unknown>> = {
    id: text(row, 'id'),
    queue: text(row, 'queue'),
    kind: text(row, 'kind'),
    payload: json(row, 'payload'),
    checkpoint: json(row, 'checkpoint'),
    priority: prioritySet(row) ?? int(row, 'priority'),
    weight: int(row, 'weight'),
    state: 'running',
    runAt: int(row, 'run_at'),
    attempts: int(row, 'attempts'),
    maxAttempts: int(row, 'max_attempts'),
    leaseExpiresAt: intOrNull(row, 'lease_expires_at'),
    workerId,
    progress: null,
    progressMessage: null,
    cancelRequested: false,
    createdAt: int(row, 'created_at'),
    updatedAt: now,
    startedAt: now,
    finishedAt: null,
    dependsOn: int(row, 'depends_on'),
    workflowRunId: textOrNull(row, 'workflow_run_id'),
    expiresAt: null,
    pausedAt: null,
  };
  for (const field of readBack.extra) job[field] = JOB_FIELD_READERS[field].read(row);
  // The type stays the whole job's, as pickFields' answer does: nothing reads the fields left out.
  return job as Job;
}

/** The columns of a CompletedJob, for a statement's RETURNING (table-qualified by the caller if needed). */
export const COMPLETED_JOB_COLUMNS = ['id', 'queue', 'kind', 'attempts', 'max_attempts', 'progress', 'run_at', 'cancel_requested', 'workflow_run_id', 'created_at', 'updated_at', 'started_at', 'weight', 'dependents'] as const;

/** A row of COMPLETED_JOB_COLUMNS, of a job the statement completed. */
export function mapCompletedJob(row: Row): CompletedJob {
  return {
    id: text(row, 'id'),
    queue: text(row, 'queue'),
    kind: text(row, 'kind'),
    state: 'completed',
    attempts: int(row, 'attempts'),
    maxAttempts: int(row, 'max_attempts'),
    progress: intOrNull(row, 'progress'),
    runAt: int(row, 'run_at'),
    cancelRequested: bool(row, 'cancel_requested'),
    workflowRunId: textOrNull(row, 'workflow_run_id'),
    pausedAt: null,
    createdAt: int(row, 'created_at'),
    updatedAt: int(row, 'updated_at'),
    startedAt: intOrNull(row, 'started_at'),
    weight: int(row, 'weight'),
    dependents: int(row, 'dependents'),
  };
}

/** The priority set on a job whose priority ageing raised; null when not raised (or not selected). */
function prioritySet(row: Row): number | null {
  return row.get('priority_set') === undefined ? null : intOrNull(row, 'priority_set');
}

/**
 * The `uniqueness` column: null when the job has none. A statement that does not select the
 * column (undefined) reads as none too.
 */
function uniquenessFrom(v: unknown): JobUniqueness | null {
  if (typeof v !== 'string') return null;
  const parsed: unknown = JSON.parse(v);
  if (!isRecord(parsed)) return null;
  const rule = parsed['rule'];
  const forMs = parsed['forMs'];
  const by = parsed['by'];
  if ((rule !== 'unique' && rule !== 'debounce' && rule !== 'throttle') || typeof forMs !== 'number' || !Array.isArray(by)) return null;
  const parts = by.filter((p): p is UniqueKeyPart => typeof p === 'string' && (UNIQUE_KEY_PARTS.some((k) => k === p) || p.startsWith('payload.')));
  const whileValue = UNIQUE_WHILE.find((w) => w === parsed['while']);
  return whileValue === undefined ? { rule, forMs, by: parts } : { rule, forMs, by: parts, while: whileValue };
}

/** A queue's retry rule and default expiry, each only when it has one (as `owner`: a queue without them reads as before). */
function retryPolicyOf(row: Row): Pick<StoredQueue, 'retry' | 'defaultExpireAfterMs'> {
  const rule = retryRuleOf(textOrNull(row, 'retry_rule'));
  const expireAfterMs = intOrNull(row, 'default_expire_after_ms');
  return { ...(rule === null ? {} : { retry: rule }), ...(expireAfterMs === null ? {} : { defaultExpireAfterMs: expireAfterMs }) };
}

/** A stored retry rule (JSON text, written by the engine from a checked rule), or null. */
function retryRuleOf(stored: string | null): RetryRule | null {
  return stored === null ? null : retryRule(JSON.parse(stored), 'retry_rule');
}

/** The group key as a job shows it: '' (a job without a group in a grouped queue) is none. */
function groupOf(key: string | null): string | null {
  return key === null || key === '' ? null : key;
}

/** A job exactly as the insert in jobs.ts stores it (the column defaults included). */
export function newJob(values: JobInsert): Job {
  const tags: unknown = JSON.parse(values.tags);
  return {
    id: values.id,
    queue: values.queue,
    kind: values.kind,
    payload: JSON.parse(values.payload),
    priority: values.priority,
    weight: values.weight,
    state: values.state,
    runAt: values.runAt,
    attempts: 0,
    maxAttempts: values.maxAttempts,
    backoff: { strategy: oneOfValue(values.backoffStrategy, 'backoff_strategy', STRATEGIES), baseMs: values.backoffBaseMs, capMs: values.backoffCapMs, jitter: values.backoffJitter },
    timeoutMs: values.timeoutMs,
    leaseExpiresAt: null,
    workerId: null,
    idempotencyKey: values.idempotencyKey,
    progress: null,
    progressMessage: null,
    checkpoint: null,
    result: null,
    lastError: values.lastError,
    cancelRequested: false,
    tags: Array.isArray(tags) ? tags.filter((t): t is string => typeof t === 'string') : [],
    context: values.context === null ? null : contextFrom(JSON.parse(values.context)),
    createdAt: values.now,
    updatedAt: values.now,
    startedAt: null,
    finishedAt: values.state === 'cancelled' ? values.now : null,
    dependsOn: values.dependsOn,
    waitingFor: values.waitingFor,
    dependents: 0,
    step: values.step,
    workflowRunId: values.workflowRunId,
    group: groupOf(values.groupKey),
    uniqueness: uniquenessFrom(values.uniqueness),
    retry: retryRuleOf(values.retryRule),
    expiresAt: values.expireAt,
    deadlineAt: values.deadlineAt,
    pausedAt: null,
    agedPriority: null,
  };
}

/** The job at the other end of a dependency (`id`, `state`, `step`, `queue`, `kind`, `result`) and the edge's `on_condition`. */
export function mapDependency(row: Row): JobDependency {
  return {
    id: text(row, 'id'),
    on: oneOfColumn(row, 'on_condition', DEPENDENCY_CONDITIONS),
    state: jobState(row),
    step: textOrNull(row, 'step'),
    queue: text(row, 'queue'),
    kind: text(row, 'kind'),
    result: json(row, 'result'),
  };
}

/** mapDependency, with the job that has it (`job_id`) and whether the edge is `resolved`. */
export function mapStoredDependency(row: Row): StoredDependency {
  return { ...mapDependency(row), jobId: text(row, 'job_id'), resolved: bool(row, 'resolved') };
}

export function mapRun(row: Row): JobRun {
  const startedAt = int(row, 'started_at');
  const finishedAt = intOrNull(row, 'finished_at');
  return {
    jobId: text(row, 'job_id'),
    run: int(row, 'run'),
    attempt: int(row, 'attempt'),
    workerId: text(row, 'worker_id'),
    startedAt,
    finishedAt,
    outcome: oneOfColumn(row, 'outcome', OUTCOMES),
    error: textOrNull(row, 'error'),
    stack: textOrNull(row, 'stack'),
    exitCode: intOrNull(row, 'exit_code'),
    httpStatus: intOrNull(row, 'http_status'),
    durationMs: finishedAt === null ? null : finishedAt - startedAt,
  };
}

export function mapOutputLine(row: Row): OutputLine {
  return {
    seq: int(row, 'seq'),
    attempt: int(row, 'attempt'),
    // Lines from before migration 7 have no run: 0 says so (real runs count from 1).
    run: intOrNull(row, 'run') ?? 0,
    stream: oneOfColumn(row, 'stream', STREAMS),
    text: text(row, 'text'),
    at: int(row, 'at'),
  };
}

const POLICIES: readonly MissedRunPolicy[] = ['skip', 'runOnce'];
const OVERLAP_POLICIES: readonly OverlapPolicy[] = ['allow', 'skip'];

/** A schedule's stored parameters (JSON text of an object of strings), checked rather than trusted. */
function paramsOf(row: Row): Record<string, string> | undefined {
  if (row.get('params') === null || row.get('params') === undefined) return undefined;
  const value = json(row, 'params');
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error(`schedules.params of "${text(row, 'name')}" is not an object`);
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(value)) {
    if (typeof v !== 'string') throw new Error(`schedules.params.${k} of "${text(row, 'name')}" is not a string`);
    out[k] = v;
  }
  return out;
}

export function mapStoredSchedule(row: Row): StoredSchedule {
  return {
    name: text(row, 'name'),
    cron: text(row, 'cron'),
    timezone: text(row, 'timezone'),
    queue: text(row, 'queue'),
    job: text(row, 'job'),
    enabled: bool(row, 'enabled'),
    missedPolicy: oneOfColumn(row, 'missed_policy', POLICIES),
    overlapPolicy: oneOfColumn(row, 'overlap_policy', OVERLAP_POLICIES),
    nextRunAt: intOrNull(row, 'next_run_at'),
    lastRunAt: intOrNull(row, 'last_run_at'),
    lastJobId: textOrNull(row, 'last_job_id'),
    createdAt: int(row, 'created_at'),
    updatedAt: int(row, 'updated_at'),
    ...optional(row),
  };
}

/** The fields a schedule has only when apply made it: its owner, template and parameters. */
function optional(row: Row): Pick<Schedule, 'owner' | 'template' | 'params' | 'workflow' | 'lastRunId'> {
  const out: Pick<Schedule, 'owner' | 'template' | 'params' | 'workflow' | 'lastRunId'> = {};
  const owner = row.get('owner') === undefined ? null : textOrNull(row, 'owner');
  if (owner !== null) out.owner = owner;
  const template = textOrNull(row, 'template');
  if (template !== null) out.template = template;
  const params = paramsOf(row);
  if (params !== undefined) out.params = params;
  const workflow = textOrNull(row, 'workflow');
  if (workflow !== null) {
    out.workflow = workflow;
    out.lastRunId = textOrNull(row, 'last_run_id');
  }
  return out;
}

const WORKER_TYPES: readonly WorkerType[] = ['builtin', 'remote'];

export function mapWorker(row: Row, runningJobIds: string[]): Worker {
  return {
    id: text(row, 'id'),
    type: oneOfColumn(row, 'type', WORKER_TYPES),
    name: textOrNull(row, 'name'),
    host: textOrNull(row, 'host'),
    pid: intOrNull(row, 'pid'),
    queues: stringArray(row, 'queues'),
    kinds: stringArray(row, 'kinds'),
    concurrency: intOrNull(row, 'concurrency'),
    capacity: intOrNull(row, 'capacity'),
    runningJobIds,
    startedAt: int(row, 'started_at'),
    lastHeartbeatAt: int(row, 'last_heartbeat_at'),
    alive: bool(row, 'alive'),
  };
}

/** A queue's settings (its counts are added by the caller): declared with the statements (./statements/queues.ts). */

function limitsOf(row: Row): ResourceLimits {
  const limits: ResourceLimits = {};
  const memoryBytes = intOrNull(row, 'limit_memory_bytes');
  const cpuSeconds = intOrNull(row, 'limit_cpu_seconds');
  const openFiles = intOrNull(row, 'limit_open_files');
  const processes = intOrNull(row, 'limit_processes');
  if (memoryBytes !== null) limits.memoryBytes = memoryBytes;
  if (cpuSeconds !== null) limits.cpuSeconds = cpuSeconds;
  if (openFiles !== null) limits.openFiles = openFiles;
  if (processes !== null) limits.processes = processes;
  return limits;
}

export function mapSettings(row: Row): StoredQueue {
  const perSecond = row.get('rate_per_second') === null ? null : real(row, 'rate_per_second');
  const burst = intOrNull(row, 'rate_burst');
  const groupRatePerSecond = row.get('group_rate_per_second') === null ? null : real(row, 'group_rate_per_second');
  return {
    name: text(row, 'name'),
    concurrency: intOrNull(row, 'concurrency'),
    rateLimit: perSecond === null ? null : { perSecond, burst: burst ?? 1 },
    paused: bool(row, 'paused'),
    defaultMaxAttempts: int(row, 'default_max_attempts'),
    defaultBackoff: backoffOf(row),
    defaultTimeoutMs: int(row, 'default_timeout_ms'),
    retentionMs: intOrNull(row, 'retention_ms'),
    limits: limitsOf(row),
    createdAt: int(row, 'created_at'),
    ...(row.get('owner') === null || row.get('owner') === undefined ? {} : { owner: text(row, 'owner') }),
    groupConcurrency: intOrNull(row, 'group_concurrency'),
    groupRate: groupRatePerSecond === null ? null : { perSecond: groupRatePerSecond, burst: intOrNull(row, 'group_rate_burst') ?? 1 },
    groupWeights: groupWeightsOf(row),
    grouped: bool(row, 'grouped'),
    ...retryPolicyOf(row),
    ...ageingOf(row),
  };
}

/** A queue's priority ageing (`"1 per 10m"`), only when it has one (as `owner`). */
function ageingOf(row: Row): Pick<StoredQueue, 'ageing'> {
  const step = row.get('ageing_step') === undefined ? null : intOrNull(row, 'ageing_step');
  const everyMs = row.get('ageing_every_ms') === undefined ? null : intOrNull(row, 'ageing_every_ms');
  return step === null || everyMs === null ? {} : { ageing: formatAgeing({ step, everyMs }) };
}

/** A queue's fairness weights (group_weights, a JSON object of group keys to weights), or null. */
function groupWeightsOf(row: Row): Record<string, number> | null {
  const value = json(row, 'group_weights');
  if (typeof value !== 'object' || value === null) return null;
  const weights: Record<string, number> = {};
  for (const [key, weight] of Object.entries(value)) if (typeof weight === 'number') weights[key] = weight;
  return weights;
}


/** A daemon recorded on the store. */
export function mapDaemon(row: Row): DaemonInstance {
  return {
    id: text(row, 'id'),
    host: text(row, 'host'),
    pid: int(row, 'pid'),
    processStart: textOrNull(row, 'process_start'),
    socketPath: text(row, 'socket'),
    executorId: text(row, 'executor_id'),
    startedAt: int(row, 'started_at'),
    heartbeatAt: int(row, 'heartbeat_at'),
    stoppedAt: intOrNull(row, 'stopped_at'),
  };
}

const TOKEN_SCOPES: readonly TokenScope[] = ['admin', 'worker', 'read'];

/** An access token as stored: its hash, never the token. */
export function mapToken(row: Row): StoredToken {
  return { name: text(row, 'name'), scope: oneOfColumn(row, 'scope', TOKEN_SCOPES), hash: text(row, 'hash'), createdAt: int(row, 'created_at') };
}

const MANAGED_TYPES: readonly ManagedType[] = ['queue', 'template', 'workflow', 'schedule'];

export function mapTemplate(row: Row): StoredTemplate {
  return {
    name: text(row, 'name'),
    queue: text(row, 'queue'),
    kind: text(row, 'kind'),
    body: text(row, 'body'),
    createdAt: int(row, 'created_at'),
    updatedAt: int(row, 'updated_at'),
  };
}

export function mapOwnership(row: Row): Ownership {
  return {
    type: oneOfColumn(row, 'type', MANAGED_TYPES),
    name: text(row, 'name'),
    project: text(row, 'project'),
    applied: text(row, 'applied'),
    appliedAt: int(row, 'applied_at'),
  };
}

export type { ScheduleWrite } from './statements/schedules';

export function mapWorkflow(row: Row): StoredWorkflow {
  return { name: text(row, 'name'), body: text(row, 'body'), createdAt: int(row, 'created_at'), updatedAt: int(row, 'updated_at') };
}

export function mapWorkflowRun(row: Row): StoredWorkflowRun {
  return {
    id: text(row, 'id'),
    workflow: text(row, 'workflow'),
    params: text(row, 'params'),
    definition: text(row, 'definition'),
    state: oneOfColumn(row, 'state', WORKFLOW_RUN_STATES),
    source: text(row, 'source'),
    total: int(row, 'total'),
    unfinished: int(row, 'unfinished'),
    dead: int(row, 'dead'),
    cancelled: int(row, 'cancelled'),
    createdAt: int(row, 'created_at'),
    endedAt: intOrNull(row, 'ended_at'),
  };
}
