/**
 * The queue engine: an async library over a store (daemon/storage/store.ts). The RPC layer, the
 * executors, the scheduler and the reaper all go through this class and never touch SQL.
 *
 * Each public method validates its raw input first (nothing invalid reaches the store), computes
 * the policy (backoff, lease, next run time) and hands the store one job operation (./ops/), a
 * generator of statement calls that the store runs in one transaction; what it changed is
 * recorded on the engine's event hub, which delivers it only after the commit.
 *
 * The rule that keeps group commit working: a method makes its store call before its first
 * `await` (the methods here are not `async` at all: they return the store's promise, or a
 * rejected one when validation fails). A store that works synchronously (SQLite) then does the
 * call's work inside whatever transaction `batch` has open. A method that awaited first would
 * run its store work after the batch had committed, in a transaction of its own.
 */
import { LIMITS, TOKEN_SCOPES } from '../../shared/protocol';
import type {
  ApplyProjectParams,
  ApplyProjectResult,
  EnqueueTemplateParams,
  ProjectStateParams,
  ProjectStateResult,
  Template,
  BulkParams,
  BulkUpdateParams,
  BulkResult,
  CheckpointParams,
  CompleteManyFailure,
  CompleteManyParams,
  CompleteManyResult,
  CompleteParams,
  ConfigureQueueParams,
  QueueGroupsParams,
  QueueGroupsResult,
  CreateScheduleParams,
  DeleteQueueParams,
  EnqueueBatchParams,
  EnqueueParams,
  EnqueueResult,
  FailParams,
  HeartbeatParams,
  HeartbeatResult,
  JobOutputParams,
  JobOutputResult,
  JobWithRuns,
  ListJobsParams,
  ListJobsResult,
  LogParams,
  ProgressParams,
  PurgeQueueParams,
  RegisterWorkerParams,
  ReleaseParams,
  SnoozeParams,
  Stats,
  UpdateJobParams,
  UpdateScheduleParams,
} from '../../shared/protocol';
import type { ClaimedJob, Job, JobState, OutputStream, Queue, Schedule, Worker, WorkerType } from '../../shared/protocol/types';
import type { Store, StoreDescription, WriteOptions } from '../storage/store';
import type { DaemonInstance, DaemonRegistration } from '../storage/statements/daemons';
import type { StoredToken } from '../storage/statements/tokens';
import type { CompleteOutcome, CounterMismatch, EngineClaimParams, EngineListener, EngineOptions, EnqueueOutcome, FireScheduleParams } from './api';
import { QUEUE_DEFAULTS, UPKEEP_BATCH } from './defaults';
import { ChangeHub } from './events';
import { kindFilter } from './kinds';
import { jobRules } from './rules';
import { UuidV7, firstIdAt } from '../../shared/domain/uuid';
import type { JobAction } from '../../shared/domain/states';
import * as v from './validate/jobs';
import type { BulkInput, EnqueueInput } from './validate/jobs';
import { integer, jobId, nameList, name as validName, object } from '../../shared/domain/validate';
import * as vq from './validate/queues';
import * as vs from './validate/schedules';
import * as vw from './validate/worker';
import * as vd from './validate/declaration';
import { liveObjects } from './projects';
import { templateToJob } from '../../shared/jobsfile';
import { invalidParams } from '../../shared/protocol/errors';
import type { Op } from '../storage/statements';
import * as attempts from './ops/attempts';
import * as daemons from './ops/daemons';
import * as jobs from './ops/jobs';
import * as output from './ops/output';
import * as pauseAll from './ops/pauseAll';
import * as projects from './ops/projects';
import * as queues from './ops/queues';
import * as schedules from './ops/schedules';
import * as tokens from './ops/tokens';
import * as upkeep from './ops/upkeep';
import * as expiry from './ops/expiry';
import * as ageing from './ops/ageing';
import * as workers from './ops/workers';
import * as workflows from './ops/workflows';
import * as vwf from '../../shared/domain/rules/workflows';
import type { Workflow, WorkflowRun, ScheduleTriggerResult, WorkflowRunActionResult, WorkflowRunDetail, WorkflowRunStarted, WorkflowRunsResult } from '../../shared/protocol/workflows';
import * as claimOps from './ops/claim';
import { SimpleClaims } from './simpleClaims';
import * as enqueueOps from './ops/enqueue';
import * as groupOps from './ops/groups';
import { opContext, type OpContext, type Policy } from './ops/context';
import * as historyOps from './ops/history';
import { currentActor } from './actor';
import { jobHistory } from './ops/jobHistory';
import { HISTORY_DEFAULTS, HistoryTally, type HistoryOptions } from './history';
import { statsHistoryParams } from './validate/history';
import type { HistoryPoint, StatsHistoryParams } from '../../shared/protocol';

export class Engine {
  /** The store in neutral words (kind and location), for `daemon.status`. */
  readonly store: StoreDescription;
  /** The store the operations run on. */
  private readonly db: Store;
  private readonly events: ChangeHub;
  /** The clock (epoch ms), injected by tests: it bounds how far ahead a runAt may be. */
  private readonly now: () => number;
  /** The policy the job operations (./ops/) run with. */
  private readonly policy: Policy;
  /** What this engine counted for the queue history and has not written for good; null with history off. */
  private readonly tally: HistoryTally | null;
  private readonly historyOptions: HistoryOptions | null;
  /** This engine's own name on the minute rows it writes: new each time, so a restart within a minute adds to it. */
  private readonly instance: string;
  /** Which workers' claims were lately not simple, so that they skip the one-statement try. */
  private readonly simpleClaims: SimpleClaims;

  constructor(options: EngineOptions) {
    const now = options.now ?? Date.now;
    this.now = now;
    const random = options.random ?? Math.random;
    const ids = new UuidV7(now);
    this.events = new ChangeHub((error) => console.error(`spool engine: an event listener failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`), now);
    this.policy = {
      now,
      newId: () => ids.next(),
      firstIdAt,
      rules: jobRules(random),
      queueDefaults: QUEUE_DEFAULTS,
      batchSize: UPKEEP_BATCH,
      maxOutputLinesPerJob: LIMITS.maxOutputLinesPerJob,
    };
    this.historyOptions = options.history === false ? null : (options.history ?? HISTORY_DEFAULTS);
    this.tally = this.historyOptions === null ? null : new HistoryTally();
    const tally = this.tally;
    if (tally !== null) this.events.stepSink = (step) => tally.add(step);
    this.instance = ids.next();
    this.simpleClaims = new SimpleClaims(now);
    this.db = options.store(this.events, now);
    this.store = this.db.description;
  }

  /** Runs a job operation (./ops/) in one write transaction of the store. */
  private write<T>(op: (c: OpContext) => Op<T>, who: string = currentActor(), options?: WriteOptions): Promise<T> {
    // The actor is read when the call is made (engine/actor.ts): a method of several
    // transactions passes the one it read at its start.
    return this.db.write((changes) => op(opContext(this.policy, changes, who)), options);
  }

  /** Runs a reading operation (./ops/) in one read transaction of the store. */
  private read<T>(op: (c: OpContext) => Op<T>): Promise<T> {
    return this.db.read((changes) => op(opContext(this.policy, changes)));
  }

  /** The schema migrations opening the file applied (all of them for a new file), and how long they took. */
  get migrated(): { versions: number[]; ms: number } {
    return this.db.migrated;
  }

  /** Settles once the store is open and migrated (at once for SQLite); rejects with why it cannot open. */
  open(): Promise<void> {
    return this.db.open ? this.db.open() : Promise.resolve();
  }

  /**
   * Group commit: runs `fn` — any number of this engine's own calls — in one write transaction,
   * with one commit (and one fsync) for all of them. Each call inside still succeeds or fails on
   * its own (a savepoint each): a call that throws undoes only itself, and `fn` may catch it and
   * go on. Events are delivered after the one commit. `fn` must be synchronous: the calls it
   * makes are started, not awaited (return their promises, in an array or object: a promise
   * returned directly is refused, as the mark of an async `fn`). Each call's promise tells how its
   * own savepoint went; whether the batch committed is told by `batch` itself, which throws when
   * the commit fails. A store that cannot work synchronously runs the calls one by one, each in
   * its own transaction.
   */
  batch<T>(fn: () => T): T {
    // A store that cannot work synchronously has no batch: the calls fn starts run one by one,
    // each in its own transaction, and answer the same.
    return this.db.batch ? this.db.batch(fn) : fn();
  }

  // ------------------------------------------------------------------------------------------
  // Jobs

  enqueue(params: EnqueueParams): Promise<EnqueueResult> {
    return checked(() => v.enqueueParams(params, this.now()), (input) => this.write((c) => enqueueOps.enqueue(c, input)));
  }

  /** All in one transaction. */
  enqueueBatch(params: EnqueueBatchParams): Promise<{ results: EnqueueResult[] }> {
    return checked(
      () => v.enqueueBatchParams(params, this.now()),
      (inputs) => this.write((c) => enqueueOps.enqueueMany(c, inputs)).then((results) => ({ results })),
    );
  }

  /**
   * Enqueues in one transaction, each with the outcome its own `enqueue` would have had: invalid
   * params fail alone, in their slot (group commit shares one call among pipelined enqueues).
   */
  enqueueEach(params: EnqueueParams[]): Promise<EnqueueOutcome[]> {
    const now = this.now();
    const inputs: EnqueueInput[] = [];
    const slots = params.map((item): EnqueueOutcome | number => {
      try {
        inputs.push(v.enqueueParams(item, now));
        return inputs.length - 1;
      } catch (error) {
        return { ok: false, error };
      }
    });
    if (inputs.length === 0) return Promise.resolve(slots.filter((s) => typeof s !== 'number'));
    // One store call for every valid enqueue, started now (inside the caller's batch). If the
    // store refuses them as a whole, each is tried alone so that only the culprit fails; those
    // tries come after the batch, in transactions of their own (a store error is rare here:
    // validation has already passed).
    return this.write((c) => enqueueOps.enqueueMany(c, inputs)).then(
      (results) => slots.map((s) => (typeof s === 'number' ? ok(results[s]) : s)),
      () => Promise.all(slots.map((s) => (typeof s === 'number' ? outcome(this.write((c) => enqueueOps.enqueue(c, inputs[s] as EnqueueInput))) : s))),
    );
  }

  getJob(id: string): Promise<JobWithRuns> {
    return checked(() => jobId(id), (valid) => this.read(() => jobs.getJob(valid)));
  }

  listJobs(params: ListJobsParams): Promise<ListJobsResult> {
    return checked(
      () => v.listParams(params),
      (input) =>
        this.read((c) => jobs.listJobs(c, { ...input, limit: input.limit + 1 })).then((found) => {
          const page = found.slice(0, input.limit);
          const last = page[page.length - 1];
          return { jobs: page, nextCursor: found.length > input.limit && last ? v.encodeCursor(input.order, { id: last.id, runAt: last.runAt }) : null };
        }),
    );
  }

  output(params: JobOutputParams): Promise<JobOutputResult> {
    return checked(
      () => v.outputParams(params),
      (input) => this.read(() => ('last' in input ? output.outputTail(input.id, input.last) : output.output(input.id, input.after, input.limit))),
    );
  }

  cancel(id: string): Promise<Job> {
    return checked(() => jobId(id), (valid) => this.write((c) => jobs.cancel(c, valid)));
  }

  retry(id: string): Promise<Job> {
    return checked(() => jobId(id), (valid) => this.write((c) => jobs.retry(c, valid)));
  }

  update(params: UpdateJobParams): Promise<Job> {
    return checked(() => v.updateParams(params, this.now()), (input) => this.write((c) => jobs.update(c, input)));
  }

  /** Pauses every queue (`paused` true) or ends that, for every daemon of the store; whether all are paused now. */
  setAllPaused(paused: boolean): Promise<boolean> {
    return this.write((c) => pauseAll.setAllPaused(c, paused));
  }

  runNow(id: string): Promise<Job> {
    return checked(() => jobId(id), (valid) => this.write((c) => jobs.runNow(c, valid)));
  }

  /** Pauses a running shell job a daemon runs (its processes stopped, lease and timeout frozen). */
  pauseJob(id: string): Promise<Job> {
    return checked(() => jobId(id), (valid) => this.write((c) => jobs.pause(c, valid)));
  }

  /** Resumes a paused job. */
  resumeJob(id: string): Promise<Job> {
    return checked(() => jobId(id), (valid) => this.write((c) => jobs.resume(c, valid)));
  }

  hold(id: string): Promise<Job> {
    return checked(() => jobId(id), (valid) => this.write((c) => jobs.hold(c, valid)));
  }

  unhold(id: string): Promise<Job> {
    return checked(() => jobId(id), (valid) => this.write((c) => jobs.unhold(c, valid)));
  }

  /** The priority of every job named that has not started. */
  updateMany(params: BulkUpdateParams): Promise<BulkResult> {
    return checked(
      () => v.bulkUpdateParams(params),
      ({ jobs: input, priority }) => {
        const change = { priority, delayMs: undefined, runAt: undefined, payload: null, maxAttempts: null, tags: null, weight: null, timeoutMs: null, payloadEdits: {} };
        return input.dryRun === true ? this.read((c) => jobs.bulkPreview(c, input, 'update')) : this.bulk(input, (c, id) => jobs.update(c, { id, ...change })).then(({ count, errors }) => ({ count, errors }));
      },
    );
  }

  holdMany(params: BulkParams): Promise<BulkResult> {
    return this.many(params, 'hold', (c, id) => jobs.hold(c, id));
  }

  unholdMany(params: BulkParams): Promise<BulkResult> {
    return this.many(params, 'unhold', (c, id) => jobs.unhold(c, id));
  }

  /** Deletes a job (with `cascade`, the jobs that depend on it too); how many were deleted. */
  deleteJob(id: string, cascade = false): Promise<number> {
    return checked(() => jobId(id), (valid) => this.write((c) => jobs.deleteJob(c, valid, cascade)));
  }

  cancelMany(params: BulkParams): Promise<BulkResult> {
    return checked(
      () => v.bulkParams(params),
      (input) =>
        input.dryRun === true ? this.read((c) => jobs.bulkPreview(c, input, 'cancel')) : this.bulkCancel(input).then(({ count, errors, values }) => ({
          count,
          errors,
          stopRequested: values.filter((job) => job.state === 'running').length,
        })),
    );
  }

  retryMany(params: BulkParams): Promise<BulkResult> {
    return this.many(params, 'retry', (c, id) => jobs.retry(c, id));
  }

  deleteMany(params: BulkParams): Promise<BulkResult> {
    return this.many(params, 'delete', (c, id) => jobs.deleteJob(c, id, false));
  }

  /** A bulk method: `run` on each job, or with `dryRun` what `action` would apply to, counted. */
  private many(params: BulkParams, action: JobAction, run: (c: OpContext, id: string) => Op<unknown>): Promise<BulkResult> {
    return checked(
      () => v.bulkParams(params),
      (input) => (input.dryRun === true ? this.read((c) => jobs.bulkPreview(c, input, action)) : this.bulk(input, run).then(({ count, errors }) => ({ count, errors }))),
    );
  }

  /**
   * Ids, or every match of a filter, in transactions of batchSize jobs each; refusals are
   * collected, not thrown. The ids are read first (its store call made before the first await,
   * see the rule at the top of the file); each batch is then a transaction of its own, so a bulk
   * action over a huge queue never holds the store's locks for long.
   */
  /** A bulk cancel: a job an earlier cancel of it cancelled as a dependent counts as cancelled when it comes to it. */
  private bulkCancel(input: BulkInput): Promise<jobs.Applied<Job>> {
    const cascaded = new Set<string>();
    return this.bulk(input, (c, id) => jobs.cancel(c, id, cascaded));
  }

  private async bulk<T>(input: BulkInput, action: (c: OpContext, id: string) => Op<T>): Promise<jobs.Applied<T>> {
    // Read before the first await: each batch's transaction records the caller (engine/actor.ts).
    const who = currentActor();
    const ids = await this.read((c) => jobs.bulkIds(c, input));
    const all: jobs.Applied<T> = { count: 0, errors: [], values: [] };
    const size = this.policy.batchSize;
    for (let i = 0; i < ids.length; i += size) {
      const chunk = ids.slice(i, i + size);
      // Each transaction's outcome is its own (PostgreSQL may run one again after a
      // serialization failure), and is added up only once it has committed.
      const done = await this.write((c) => jobs.applyEach(chunk, (id) => action(c, id)), who);
      all.count += done.count;
      all.errors.push(...done.errors);
      all.values.push(...done.values);
    }
    return all;
  }

  // ------------------------------------------------------------------------------------------
  // The worker side

  claim(params: EngineClaimParams): Promise<ClaimedJob[]> {
    return checked(
      () => vw.claimParams(params),
      (input) => {
        const kinds = kindFilter(input);
        if (kinds === null) return Promise.resolve([]);
        const { workerId, queues } = input;
        const trySimple = this.simpleClaims.worthTrying(workerId, queues);
        const notSimple = () => this.simpleClaims.notSimple(workerId, queues);
        // `dependencies` is not a column: the engine adds a job's dependencies from dependsOn, which it always reads.
        const fields = input.fields?.filter((field) => field !== 'dependencies');
        return this.write((c) => claimOps.claim(c, { workerId, queues, max: input.max, kinds, trySimple, notSimple, ...(fields === undefined ? {} : { fields }) }));
      },
    );
  }

  heartbeat(params: HeartbeatParams): Promise<HeartbeatResult> {
    return checked(() => vw.heartbeatParams(params), (input) => this.write((c) => attempts.heartbeat(c, input.id, input.workerId, input.extendMs)));
  }

  progress(params: ProgressParams): Promise<void> {
    return checked(() => vw.progressParams(params), (input) => this.write((c) => attempts.progress(c, input.id, input.workerId, input.percent, input.message)));
  }

  checkpoint(params: CheckpointParams): Promise<void> {
    return checked(() => vw.checkpointParams(params), (input) => this.write((c) => attempts.checkpoint(c, input.id, input.workerId, input.checkpoint)));
  }

  /** Appends output lines (capped per job, oldest dropped with a marker line). */
  log(params: LogParams): Promise<void> {
    return checked(() => vw.logParams(params), (input) => this.write((c) => attempts.appendOutput(c, input.id, input.workerId, input.stream, [input.lines])));
  }

  /** Output of the daemon's own executors: same as log but with any stream and no lease check beyond the worker id. */
  appendOutput(jobId: string, workerId: string, stream: Exclude<OutputStream, 'marker'>, lines: string[]): Promise<void> {
    // The wire's per-call limit (LIMITS.maxBatch lines) does not bind the daemon's own executors:
    // a shell command can print thousands of lines between two reads. They are stored in chunks
    // of the wire's size, all in one transaction.
    return checked(
      () => {
        const chunks: ReturnType<typeof vw.logParams>[] = [];
        for (let i = 0; i === 0 || i < lines.length; i += LIMITS.maxBatch) {
          chunks.push(vw.logParams({ id: jobId, workerId, stream, lines: lines.slice(i, i + LIMITS.maxBatch) }));
        }
        return chunks;
      },
      (chunks) => {
        const first = chunks[0];
        if (first === undefined) return Promise.resolve();
        return this.write((c) => attempts.appendOutput(c, first.id, first.workerId, first.stream, chunks.map((chunk) => chunk.lines)));
      },
    );
  }

  complete(params: CompleteParams): Promise<Job> {
    return checked(() => vw.completeParams(params), (input) => this.write((c) => attempts.complete(c, input.id, input.workerId, input.result)));
  }

  /**
   * jobs.completeMany: one worker's jobs completed in one transaction and one statement, each as
   * its own `complete` would (a lost lease fails alone); answers a count and the failures.
   */
  completeBatch(params: CompleteManyParams): Promise<CompleteManyResult> {
    return checked(
      () => vw.completeManyParams(params),
      (inputs) =>
        this.write((c) => attempts.completeBatch(c, inputs)).then((errors) => {
          const failed: CompleteManyFailure[] = [];
          errors.forEach((error, i) => {
            if (error !== null) failed.push({ id: inputs[i]?.id ?? '', code: error.code, message: error.message });
          });
          return { completed: errors.length - failed.length, failed };
        }),
    );
  }

  /**
   * Many completes in one transaction and far fewer statements; each gets the outcome its own
   * `complete` call would have had (invalid params and lost leases fail alone, in their slot).
   */
  completeMany(params: CompleteParams[]): Promise<CompleteOutcome[]> {
    const inputs: ReturnType<typeof vw.completeParams>[] = [];
    const slots = params.map((item): CompleteOutcome | number => {
      try {
        inputs.push(vw.completeParams(item));
        return inputs.length - 1;
      } catch (error) {
        return { ok: false, error };
      }
    });
    if (inputs.length === 0) return Promise.resolve(slots.filter((s) => typeof s !== 'number'));
    // As in enqueueEach: one store call now, each alone (after the batch) if it fails as a whole.
    return this.write((c) => attempts.completeMany(c, inputs)).then(
      (done) => slots.map((s) => (typeof s === 'number' ? (done[s] ?? { ok: false, error: new Error(`completeMany lost the outcome of item ${s}`) }) : s)),
      () =>
        Promise.all(
          slots.map((s) => {
            if (typeof s !== 'number') return s;
            const input = inputs[s] as ReturnType<typeof vw.completeParams>;
            return this.write((c) => attempts.complete(c, input.id, input.workerId, input.result)).then(
              (job): CompleteOutcome => ({ ok: true, job }),
              (error: unknown): CompleteOutcome => ({ ok: false, error }),
            );
          }),
        ),
    );
  }

  fail(params: FailParams): Promise<Job> {
    return checked(() => vw.failInput(params, this.now()), (input) => this.write((c) => attempts.fail(c, input)));
  }

  /** A worker puts a held job off: it runs again later, the attempt given back. */
  snooze(params: SnoozeParams): Promise<Job> {
    return checked(() => vw.snoozeParams(params, this.now()), (input) => this.write((c) => attempts.snooze(c, input)));
  }

  /** A worker hands a held job back unfinished: it runs again at once, the attempt given back. */
  release(params: ReleaseParams): Promise<Job> {
    return checked(() => vw.releaseParams(params), (input) => this.write((c) => attempts.release(c, input)));
  }

  /** Cancelled running jobs end here once the executor or worker has stopped them. */
  markCancelled(id: string, workerId: string): Promise<Job> {
    return checked(
      () => ({ id: jobId(id), workerId: validName(workerId, 'workerId') }),
      (input) => this.write((c) => attempts.markCancelled(c, input.id, input.workerId)),
    );
  }

  // ------------------------------------------------------------------------------------------
  // Workers

  registerWorker(params: RegisterWorkerParams, type: WorkerType): Promise<Worker> {
    return checked(() => vw.registerParams(params), (input) => this.write((c) => workers.registerWorker(c, input, type)));
  }

  listWorkers(): Promise<Worker[]> {
    return this.read(() => workers.listWorkers());
  }

  /** A heartbeat of the worker as a whole (any RPC from it). */
  touchWorker(workerId: string): Promise<void> {
    return checked(() => validName(workerId, 'workerId'), (id) => this.write((c) => workers.touchWorker(c, id)));
  }

  /** Its connection closed: shown as gone; its leases run out normally and the reaper takes them. */
  markWorkerGone(workerId: string): Promise<void> {
    return checked(() => validName(workerId, 'workerId'), (id) => this.write(() => workers.markWorkerGone(id)));
  }

  // ------------------------------------------------------------------------------------------
  // Daemon instances

  /** Records this daemon as running from now. */
  registerDaemon(registration: DaemonRegistration): Promise<DaemonInstance> {
    return checked(
      () => ({
        ...registration,
        id: validName(registration.id, 'id'),
        pid: integer(registration.pid, 'pid', 1, 2 ** 31 - 1),
      }),
      (valid) => this.write((c) => daemons.registerDaemon(c, valid)),
    );
  }

  /** Every daemon recorded, oldest first. */
  listDaemons(): Promise<DaemonInstance[]> {
    return this.read(() => daemons.listDaemons());
  }

  /** Stores a token by its hash; AlreadyExists when the name is taken. */
  createToken(token: StoredToken): Promise<void> {
    return checked(
      () => {
        if (!TOKEN_SCOPES.includes(token.scope)) throw invalidParams('scope', `The scope must be one of ${TOKEN_SCOPES.join(', ')}.`, TOKEN_SCOPES.join(', '));
        if (!/^[0-9a-f]{64}$/.test(token.hash)) throw invalidParams('hash', 'The hash must be 64 lower-case hex digits (a SHA-256).');
        return { ...token, name: validName(token.name, 'name') };
      },
      (valid) => this.write(() => tokens.createToken(valid)),
    );
  }

  /** Every token, by name. */
  listTokens(): Promise<StoredToken[]> {
    return this.read(() => tokens.listTokens());
  }

  /** Removes a token; false when there was none by that name. */
  revokeToken(name: string): Promise<boolean> {
    return checked(() => validName(name, 'name'), (valid) => this.write((c) => tokens.revokeToken(c, valid)));
  }

  /** This daemon is alive now; its executors' worker row is seen now. False if it has no row or is recorded as stopped. */
  daemonHeartbeat(id: string, pid: number): Promise<boolean> {
    return checked(() => validName(id, 'id'), (valid) => this.write((c) => daemons.daemonHeartbeat(c, valid, pid), currentActor(), { bookkeeping: true }));
  }

  /** This daemon stopped cleanly; its executors show as gone. */
  daemonStopped(id: string, pid: number): Promise<boolean> {
    return checked(() => validName(id, 'id'), (valid) => this.write((c) => daemons.daemonStopped(c, valid, pid)));
  }

  /** A dead daemon's jobs were recovered: its row goes, its executors show as gone. */
  forgetDaemon(id: string, pid: number): Promise<boolean> {
    return checked(() => validName(id, 'id'), (valid) => this.write(() => daemons.forgetDaemon(valid, pid)));
  }

  // ------------------------------------------------------------------------------------------
  // Queues

  listQueues(): Promise<Queue[]> {
    return this.read((c) => queues.listQueues(c));
  }

  getQueue(name: string): Promise<Queue> {
    return checked(() => vq.queueName(name), (valid) => this.read((c) => queues.getQueue(c, valid)));
  }

  /** A page of a queue's groups with their counts (see ops/groups.ts listGroups). */
  queueGroups(params: QueueGroupsParams): Promise<QueueGroupsResult> {
    return checked(() => vq.groupsParams(params), (input) => this.read(() => groupOps.listGroups(input)));
  }

  configureQueue(params: ConfigureQueueParams): Promise<Queue> {
    return checked(() => vq.configureParams(params), (input) => this.write((c) => queues.configureQueue(c, input)));
  }

  pauseQueue(name: string): Promise<Queue> {
    return checked(() => vq.queueName(name), (valid) => this.write((c) => queues.setPaused(c, valid, true)));
  }

  resumeQueue(name: string): Promise<Queue> {
    return checked(() => vq.queueName(name), (valid) => this.write((c) => queues.setPaused(c, valid, false)));
  }

  /** In batches, one transaction each, so a huge purge never holds the store's locks for long. */
  purgeQueue(params: PurgeQueueParams): Promise<number> {
    return checked(
      () => vq.purgeParams(params),
      (input) => this.read((c) => queues.getQueue(c, input.name)).then(() => this.purgeAll(input.name, input.states)),
    );
  }

  /**
   * With `force`, the waiting and finished jobs go in batches first; then, in one transaction
   * with the queue locked, the check again and the delete (with force, jobs that arrived
   * meanwhile go in that transaction too).
   */
  deleteQueue(params: DeleteQueueParams): Promise<number> {
    return checked(
      () => vq.deleteQueueParams(params),
      (input) =>
        this.read(() => queues.checkQueueDeletable(input.name, input.force)).then(async () => {
          const purged = input.force ? await this.purgeAll(input.name, queues.WAITING_AND_FINISHED) : 0;
          return purged + (await this.write((c) => queues.deleteQueueNow(c, input.name, input.force)));
        }),
    );
  }

  /** Purge batches until one deletes fewer than batchSize jobs; how many went in all. */
  private async purgeAll(name: string, states: readonly JobState[]): Promise<number> {
    let total = 0;
    for (;;) {
      const deleted = await this.write((c) => queues.purgeBatch(c, name, states));
      total += deleted;
      if (deleted < this.policy.batchSize) return total;
    }
  }

  // ------------------------------------------------------------------------------------------
  // Schedules

  listSchedules(): Promise<Schedule[]> {
    return this.read(() => schedules.listSchedules());
  }

  getSchedule(name: string): Promise<Schedule> {
    return checked(() => validName(name, 'name'), (valid) => this.read(() => schedules.getSchedule(valid)));
  }

  /** `nextRunAt` is computed by the caller from the cron expression. */
  createSchedule(params: CreateScheduleParams, nextRunAt: number | null): Promise<Schedule> {
    return checked(() => vs.createScheduleParams(params), (input) => this.write((c) => schedules.createSchedule(c, input, nextRunAt)));
  }

  updateSchedule(params: UpdateScheduleParams, nextRunAt: number | null | undefined): Promise<Schedule> {
    return checked(() => vs.updateScheduleParams(params), (changes) => this.write((c) => schedules.updateSchedule(c, changes, nextRunAt)));
  }

  deleteSchedule(name: string): Promise<void> {
    return checked(() => validName(name, 'name'), (valid) => this.write(() => schedules.deleteSchedule(valid)));
  }

  /** Compare-and-swap on next_run_at, and the enqueue, in one transaction. Null if another daemon won. */
  fireSchedule(params: FireScheduleParams): Promise<{ schedule: Schedule; job: Job | null; run?: WorkflowRun } | null> {
    return checked(() => validName(params.name, 'name'), (valid) => this.write((c) => schedules.fireSchedule(c, { ...params, name: valid })));
  }

  /** Enqueue the schedule's job now without moving next_run_at. */
  triggerSchedule(name: string): Promise<ScheduleTriggerResult> {
    return checked(() => validName(name, 'name'), (valid) => this.write((c) => schedules.triggerSchedule(c, valid)));
  }

  // ------------------------------------------------------------------------------------------
  // Jobs as code

  /** Every queue, template and schedule as a plan compares them, with owners and last-applied values. */
  projectState(params: ProjectStateParams): Promise<ProjectStateResult> {
    return checked(
      () => vd.projectParams(params),
      () => this.read((c) => projects.projectObjects(c)).then((objects) => ({ objects: liveObjects(objects) })),
    );
  }

  /** A project's whole plan in one transaction, planned again from what the store holds; all or nothing. */
  applyProject(params: ApplyProjectParams): Promise<ApplyProjectResult> {
    return checked(
      () => vd.applyParams(params),
      (input) => this.write((c) => projects.applyProject(c, input)),
    );
  }

  listTemplates(): Promise<Template[]> {
    return this.read(() => projects.listTemplates());
  }

  /** Rejects with TemplateNotFound. */
  getTemplate(name: string): Promise<Template> {
    return checked(() => validName(name, 'name'), (valid) => this.read(() => projects.getTemplate(valid)));
  }

  /** Enqueues a template's job, its parameters filled in. Rejects with TemplateNotFound, or InvalidParams for a parameter it lacks or does not take. */
  enqueueTemplate(params: EnqueueTemplateParams): Promise<EnqueueResult> {
    return checked(
      () => vd.enqueueTemplateParams(params),
      async (input) => {
        const template = await this.getTemplate(input.name);
        if (input.project !== undefined && template.owner !== input.project) {
          throw invalidParams('project', `Template "${input.name}" belongs to ${template.owner === undefined ? 'no project' : `project "${template.owner}"`}, not "${input.project}".`, template.owner ?? '');
        }
        const job = templateToJob(template, input.params);
        if (!job.ok) throw invalidParams('params', `Cannot enqueue: ${job.message}`, 'the template\'s parameters');
        return this.enqueue({ ...job.value, context: { origin: `template:${input.name}` } });
      },
    );
  }

  // ------------------------------------------------------------------------------------------
  // Workflows

  /** Every workflow held, with its owner and last run. */
  listWorkflows(params: unknown): Promise<Workflow[]> {
    return checked(() => object(params, 'params', []), () => this.read(() => workflows.listWorkflows()));
  }

  /**
   * Starts a run of a held workflow (or of `definition`), every job in one transaction. `source`
   * says what started it: `user`, or `schedule NAME`. Rejects with WorkflowNotFound, or
   * InvalidParams naming the field.
   */
  runWorkflow(params: unknown, source = 'user'): Promise<WorkflowRunStarted> {
    return checked(() => vwf.runParams(params), (input) => this.write((c) => workflows.startRun(c, input, source)));
  }

  /** Runs newest first, a page at a time. */
  listWorkflowRuns(params: unknown): Promise<WorkflowRunsResult> {
    return checked(() => vwf.runsParams(params), (input) => this.read(() => workflows.listRuns(input)));
  }

  /** One run with its steps and jobs. Rejects with WorkflowRunNotFound. */
  getWorkflowRun(params: unknown): Promise<WorkflowRunDetail> {
    return checked(() => vwf.runIdParams(params), (id) => this.read(() => workflows.runDetail(id)));
  }

  /** One run without its jobs (what `workflows.changed` carries). Rejects with WorkflowRunNotFound. */
  workflowRun(id: string): Promise<WorkflowRun> {
    return this.read(() => workflows.getRun(id));
  }

  /** Cancels every job of the run that has not ended. Rejects with WorkflowRunNotFound. */
  cancelWorkflowRun(params: unknown): Promise<WorkflowRunActionResult> {
    return checked(() => vwf.runIdParams(params), (id) => this.write((c) => workflows.cancelRun(c, id)));
  }

  /** Retries the failed and cancelled part of a run. Rejects with WorkflowRunNotFound. */
  retryWorkflowRun(params: unknown): Promise<WorkflowRunActionResult> {
    return checked(() => vwf.runIdParams(params), (id) => this.write((c) => workflows.retryRun(c, id)));
  }

  // ------------------------------------------------------------------------------------------
  // Stats and upkeep

  /** O(queues): read from the maintained counters. */
  stats(): Promise<Stats> {
    return this.read((c) => upkeep.stats(c));
  }

  /**
   * Running jobs whose lease expired end as failed attempts ("lease expired"), batchSize per
   * transaction, so that no write lock is held long; a batch that comes back full is followed
   * by another.
   */
  async reapExpiredLeases(): Promise<number> {
    let total = 0;
    for (;;) {
      const reaped = await this.write((c) => attempts.reapBatch(c));
      total += reaped;
      if (reaped < this.policy.batchSize) return total;
    }
  }

  /**
   * Waiting jobs that did not start before their expiry end dead ("expired before it started"),
   * batchSize per transaction, while batches come back full.
   */
  async expireWaiting(): Promise<number> {
    let total = 0;
    for (;;) {
      const n = await this.write((c) => expiry.expireBatch(c));
      total += n;
      if (n < this.policy.batchSize) return total;
    }
  }

  /**
   * One priority ageing pass (./ops/ageing.ts): every queue with ageing gets its waiting jobs'
   * claim priorities recomputed, one statement per queue, in one transaction.
   */
  ageWaiting(): Promise<ageing.AgeingPass> {
    return this.write((c) => ageing.ageWaiting(c));
  }

  /**
   * Takes or keeps the store's leader lease on `role` for `daemonId` for `ttlMs` from now: true
   * while this daemon holds it (see leaderHold in daemon/storage/statements/daemons.ts); always
   * true on SQLite, which has no lease.
   */
  holdLeadership(role: string, daemonId: string, ttlMs: number): Promise<boolean> {
    return this.write((c) => daemons.holdLeadership(c, role, daemonId, ttlMs));
  }

  /**
   * Start-up recovery: jobs left running by the given worker ids (this daemon's own built-in
   * executors, from a previous life) go back to `retrying`, due now, without using up an attempt —
   * a job is never failed because the daemon stopped. The interrupted run ends when the daemon
   * last knew it running (see recoverInterrupted in ./ops/attempts.ts); `aliveUntil` is that daemon's
   * last heartbeat, when known. `farDaemon`: the daemon ran on another host (where its shell
   * jobs' processes cannot be stopped from here), which the interrupted runs then name.
   */
  recoverInterrupted(workerIds: string[], aliveUntil?: number, farDaemon?: attempts.FarDaemon): Promise<number> {
    return checked(
      () => nameList(workerIds, 'workerIds', LIMITS.maxBatch),
      (ids) => (ids.length === 0 ? Promise.resolve(0) : this.write((c) => attempts.recoverInterrupted(c, ids, aliveUntil, farDaemon))),
    );
  }

  /** Ids of the jobs running under these workers: what recoverInterrupted would recover. */
  runningJobIds(workerIds: string[]): Promise<string[]> {
    return checked(
      () => nameList(workerIds, 'workerIds', LIMITS.maxBatch),
      (ids) => (ids.length === 0 ? Promise.resolve([]) : this.read(() => attempts.runningJobIds(ids))),
    );
  }

  /** Retention: delete up to `batchSize` finished jobs older than their queue's retention. Returns how many. */
  cleanup(batchSize: number = UPKEEP_BATCH): Promise<number> {
    return this.retention(Math.max(1, Math.floor(batchSize)));
  }

  /**
   * Up to `limit` finished jobs past their queue's retention, in transactions of at most the
   * policy's batch size (no transaction holds the write lock, or many row locks, for long); then
   * the old stat buckets and fire records. The first store call is made before the first await.
   */
  private async retention(limit: number): Promise<number> {
    const queues = await this.read(() => upkeep.retainingQueues());
    let left = limit;
    let deleted = 0;
    for (const q of queues) {
      while (left > 0) {
        const size = Math.min(this.policy.batchSize, left);
        const n = await this.write((c) => upkeep.retentionBatch(c, q.name, q.retentionMs, size));
        deleted += n;
        left -= n;
        if (n < size) break;
      }
    }
    await this.write((c) => upkeep.pruneHistory(c));
    await this.rollupHistory();
    // A workflow run's record goes with the last of its jobs: looked for only when jobs went.
    if (deleted > 0) await this.write((c) => upkeep.pruneWorkflowRuns(c));
    return deleted;
  }

  /**
   * Writes what the queue history counted since the last write (one statement), each minute with
   * its queue's backlog and running jobs now. The daemon calls it every few seconds and before it
   * stops; what was not written when a daemon dies is lost (counts, never jobs).
   */
  async flushHistory(): Promise<void> {
    const tally = this.tally;
    if (tally === null) return;
    const now = this.now();
    const pending = tally.pending(now);
    if (pending.length === 0) return;
    await this.write((c) => historyOps.write(c, pending.map((p) => p.tally), this.instance));
    tally.written(pending, now);
  }

  /** Rolls minutes a day old up to hours, and deletes history older than kept; how many hour rows it wrote. */
  rollupHistory(): Promise<number> {
    const options = this.historyOptions;
    return options === null ? Promise.resolve(0) : this.write((c) => historyOps.rollupAndPrune(c, options));
  }

  /** `jobs.history`: a job's state changes, oldest first, derived from its row and runs. */
  jobHistory(id: string): Promise<{ events: import('../../shared/protocol').JobHistoryEvent[] }> {
    return checked(() => jobId(id), (valid) => this.read(() => jobHistory(valid)).then((events) => ({ events })));
  }

  /** `stats.history`: the points of a range, per queue, oldest first. */
  statsHistory(params: StatsHistoryParams): Promise<{ step: 'minute' | 'hour'; points: HistoryPoint[] }> {
    return checked(
      () => statsHistoryParams(params),
      (q) => this.read(() => historyOps.read(q)).then((points) => ({ step: q.step, points })),
    );
  }

  /** The earliest future time something becomes due: a delayed/retrying job, a lease expiry, a schedule. Null if none. */
  nextWakeAt(): Promise<number | null> {
    return this.read((c) => upkeep.nextWakeAt(c));
  }

  /** Recompute the per-queue counters from the jobs table and say whether they matched (tests and `doctor`). */
  verifyCounters(): Promise<{ ok: boolean; mismatches: CounterMismatch[] }> {
    return this.read(() => upkeep.verifyCounters());
  }

  subscribe(listener: EngineListener): () => void {
    return this.events.subscribe(listener);
  }

  /**
   * How far this daemon's clock is ahead of the database server's, in ms (negative: behind); null
   * for a store on this machine (SQLite), which has no other clock.
   */
  async clockSkew(): Promise<number | null> {
    return this.db.clockSkew === undefined ? null : this.db.clockSkew();
  }

  /** Closes the store; nothing may be called after. */
  close(): Promise<void> {
    return this.db.close();
  }
}

/**
 * Validates synchronously, then starts the store call at once: the call's store work happens
 * before this returns (see the rule at the top of the file). A validation error becomes the
 * rejected promise, as an `async` method's would.
 */
function checked<I, T>(validate: () => I, call: (input: I) => Promise<T>): Promise<T> {
  let input: I;
  try {
    input = validate();
  } catch (error) {
    return Promise.reject(error);
  }
  return call(input);
}

function ok(result: EnqueueResult | undefined): EnqueueOutcome {
  return result === undefined ? { ok: false, error: new Error('enqueueMany returned fewer results than jobs') } : { ok: true, result };
}

function outcome(promise: Promise<EnqueueResult>): Promise<EnqueueOutcome> {
  return promise.then(
    (result): EnqueueOutcome => ({ ok: true, result }),
    (error: unknown): EnqueueOutcome => ({ ok: false, error }),
  );
}
