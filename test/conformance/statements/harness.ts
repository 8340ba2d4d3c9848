/**
 * What the statement-level suite runs against: a store opened raw, without an engine, with a
 * minimal policy and a ChangeRecorder that keeps nothing. A test runs small operations made of
 * `sql(...)` calls through the store's own `write` and `read`, so each statement is exercised
 * exactly as an engine operation would call it, inside one transaction of that store.
 *
 * One store serves a whole describe block (a fresh PostgreSQL database costs well over a
 * second), so the tests of a block use names of their own and look for their rows in listings
 * rather than expecting listings to hold nothing else.
 */
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import type { ChangeRecorder, Store, StoreFactory } from '../../../daemon/storage/store';
import type { EnqueueResult } from '../../../shared/protocol';
import { claim, type ClaimRequest } from '../../../daemon/engine/ops/claim';
import { opContext, type Policy } from '../../../daemon/engine/ops/context';
import { enqueue } from '../../../daemon/engine/ops/enqueue';
import { sql, type Call, type ChangeSink, type Op, type StatementName } from '../../../daemon/storage/statements';
import type { EnqueueInput } from '../../../daemon/engine/validate/jobs';
import type { Job, JobCounts } from '../../../shared/protocol/types';
import { PLAIN_JOB_INSERT, type JobInsert } from '../../../daemon/storage/statements/jobs';
import { QUEUE_DEFAULTS, UPKEEP_BATCH } from '../../../daemon/engine/defaults';
import { jobRules } from '../../../daemon/engine/rules';

import { UuidV7, firstIdAt } from '../../../shared/domain/uuid';
import { FakeClock } from '../../helpers/engineTest';

/** Where a store's removal is registered: a describe block's `after`. */
export interface Cleanup {
  after(fn: () => Promise<void> | void): void;
}

/** Opens a fresh, empty store for a describe block, removed when the block ends. */
export type StatementStoreFactory = {
  kind: 'sqlite' | 'postgres';
  open(cleanup: Cleanup): StoreFactory;
};

/** The statement names every operation run through a StatementStore yielded, over the whole file. */
export const exercised = new Set<StatementName>();

/** Passes the operation's calls through, noting each statement's name (nested savepoints too). */
function* noting<T>(op: Op<T>): Op<T> {
  let step = op.next();
  while (step.done !== true) {
    const call: Call = step.value;
    let answer: unknown;
    if (call.name === '$savepoint') answer = yield { name: '$savepoint', op: noting(call.op) };
    else {
      exercised.add(call.name);
      try {
        answer = yield call;
      } catch (error) {
        step = op.throw(error);
        continue;
      }
    }
    step = op.next(answer);
  }
  return step.value;
}

/** A store opened raw, for one describe block. */
export interface StatementStore {
  kind: 'sqlite' | 'postgres';
  /** The clock the policy gives the store (enqueue and claim read it; statements take `now`). */
  clock: FakeClock;
  /** Runs the operation in one write transaction. */
  run<T>(op: () => Op<T>): Promise<T>;
  /** Runs the operation in one read transaction. */
  read<T>(op: () => Op<T>): Promise<T>;
  /** Enqueues a job through the engine's own operation, run on this store: it makes the jobs the statements act on. */
  enqueue(input: EnqueueInput): Promise<EnqueueResult>;
  /** Claims through the engine's own operation, run on this store. */
  claim(request: ClaimRequest): Promise<Job[]>;
}

/** The policy the engine's operations run with, with a fixed random (no jitter) and the clock of the test. */
function policyOf(clock: FakeClock): Policy {
  const ids = new UuidV7(clock.now);
  return { now: clock.now, newId: () => ids.next(), firstIdAt, rules: jobRules(() => 0.5), queueDefaults: QUEUE_DEFAULTS, batchSize: UPKEEP_BATCH, maxOutputLinesPerJob: 1000 };
}

/**
 * A recorder that keeps nothing: statements record no changes themselves (the operations do, on
 * the ChangeSink), so it only has to take what enqueue and claim report.
 */
function recorder(): ChangeRecorder {
  return { job: () => undefined, queue: () => undefined, output: () => undefined, mark: () => 0, discard: () => undefined, flush: () => undefined };
}

/**
 * Opens a store for the describe block being defined (call it in the block's body): the store
 * opens in the block's `before` hook and is closed, then removed, in its `after` hook.
 */
export function statementStore(factory: StatementStoreFactory): () => StatementStore {
  let store: StatementStore | undefined;
  let backend: Store | undefined;
  const cleanups: (() => Promise<void> | void)[] = [];
  before(async () => {
    const clock = new FakeClock();
    const policy = policyOf(clock);
    const opened = factory.open({ after: (fn) => void cleanups.push(fn) })(recorder(), clock.now);
    backend = opened;
    await opened.open?.();
    store = {
      kind: factory.kind,
      clock,
      enqueue: (input) => opened.write((changes: ChangeSink) => noting(enqueue(opContext(policy, changes), input))),
      claim: (request) => opened.write((changes: ChangeSink) => noting(claim(opContext(policy, changes), request))),
      run: (op) => opened.write((_changes: ChangeSink) => noting(op())),
      read: (op) => opened.read((_changes: ChangeSink) => noting(op())),
    };
  });
  // The store closes (even if it failed to open) before what it was opened on, a file or a
  // database, is removed.
  after(async () => {
    await backend?.close();
    for (const fn of cleanups.reverse()) await fn();
  });
  return () => {
    if (store === undefined) throw new Error('the statement store did not open (see the before hook of this block)');
    return store;
  };
}

/** A job as a client enqueues it, with the queue's defaults for what is left out. */
/** A job row as `jobInsert` takes it: plain defaults, made at `now`, with `fields` over them. */
export function jobRow(id: string, queue: string, now: number, fields: Partial<JobInsert> = {}): JobInsert {
  return {
    id,
    queue,
    kind: 'work',
    payload: '{}',
    priority: 0,
    weight: 1,
    ...PLAIN_JOB_INSERT,
    runAt: now,
    maxAttempts: 3,
    backoffStrategy: 'exponential',
    backoffBaseMs: 1000,
    backoffCapMs: 60_000,
    backoffJitter: 0,
    timeoutMs: 30_000,
    idempotencyKey: null,
    tags: '[]',
    context: null,
    now,
    ...fields,
  };
}

export function enqueueInput(queue: string, fields: Partial<EnqueueInput> = {}): EnqueueInput {
  return {
    queue,
    kind: 'work',
    payload: '{}',
    priority: 0,
    weight: 1,
    delayMs: undefined,
    runAt: undefined,
    maxAttempts: undefined,
    backoff: {},
    backoffField: 'backoff',
    timeoutMs: undefined,
    tags: '[]',
    idempotencyKey: null,
    context: null,
    dependsOn: [],
    group: null,
    ...fields,
  };
}

/** Enqueues one job and claims it for `workerId`: a running job whose lease that worker holds. */
export async function runningJob(s: StatementStore, queue: string, workerId: string, fields: Partial<EnqueueInput> = {}): Promise<Job> {
  const { job } = await s.enqueue(enqueueInput(queue, fields));
  const request: ClaimRequest = { workerId, queues: [queue], max: 1, kinds: { exclude: [] } };
  const [claimed] = await s.claim(request);
  if (claimed === undefined || claimed.id !== job.id) throw new Error(`claim of ${job.id} in ${queue} gave ${claimed?.id ?? 'nothing'}`);
  return claimed;
}

/**
 * Checks that every queue's maintained counters agree with a count of its jobs, after what the
 * test's statements did: SQLite keeps its counters from what each statement reports (a
 * statement that forgot to would drift), PostgreSQL by triggers.
 */
export async function assertCountersAgree(s: StatementStore): Promise<void> {
  const { kept, recount } = await s.read(function* () {
    return { kept: yield* sql('counterAll'), recount: yield* sql('counterRecount') };
  });
  const counted = new Map<string, JobCounts>();
  for (const { queue, state, count } of recount) {
    const counts = counted.get(queue) ?? { blocked: 0, queued: 0, running: 0, retrying: 0, held: 0, completed: 0, dead: 0, cancelled: 0 };
    counts[state] = count;
    counted.set(queue, counts);
  }
  for (const [queue, counts] of kept) {
    if (Object.values(counts).every((n) => n === 0)) continue;
    assert.deepEqual(counts, counted.get(queue), `the counters of queue ${queue} agree with its jobs`);
  }
  for (const [queue, counts] of counted) assert.deepEqual(kept.get(queue), counts, `queue ${queue} has counters for its jobs`);
}

/**
 * Runs `increment` (a read under a lock, then a write of what it read plus one) `times` times at
 * once, each in its own transaction, and gives back how many the caller should then find:
 * with the lock each transaction reads what the one before it committed (PostgreSQL: the row
 * lock makes it wait; SQLite: the write lock of BEGIN IMMEDIATE), so no increment is lost.
 */
export async function concurrently(s: StatementStore, times: number, increment: () => Op<void>): Promise<number> {
  await Promise.all(Array.from({ length: times }, () => s.run(increment)));
  return times;
}
