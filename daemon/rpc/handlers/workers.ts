/**
 * Handlers of the worker side: claim (with long-poll), heartbeat, progress, checkpoint, log,
 * complete, fail, release, and workers.register/list. Every call from a worker id records that
 * the worker is alive and ties it to the connection, so that a worker whose connection closes is
 * shown as gone and its waiting claims end.
 */
import { SpoolError } from '../../../shared/protocol/errors';
import {
  CLAIMED_JOB_FIELDS,
  ErrorCode,
  LIMITS,
  type ClaimedJobField,
  type CheckpointParams,
  type CompleteManyParams,
  type CompleteParams,
  type FailParams,
  type HeartbeatParams,
  type LogParams,
  type ProgressParams,
  type RegisterWorkerParams,
  type ReleaseParams,
  type SnoozeParams,
} from '../../../shared/protocol';
import type { ClaimedJob } from '../../../shared/protocol/types';
import type { EngineClaimParams } from '../../engine/api';
import type { CallContext } from '../dispatch';
import { unvalidated } from '../unvalidated';
import { isRecord } from '../../../shared/domain/records';
import { object, optionalChoiceList, optionalInteger } from '../../../shared/domain/validate';
import { pickFields } from './fields';
import type { HandlerGroup, Services } from './types';

type WorkerMethods =
  | 'jobs.claim'
  | 'jobs.heartbeat'
  | 'jobs.progress'
  | 'jobs.checkpoint'
  | 'jobs.log'
  | 'jobs.complete'
  | 'jobs.completeMany'
  | 'jobs.fail'
  | 'jobs.release'
  | 'jobs.snooze'
  | 'workers.register'
  | 'workers.list';

/** Claim fields passed to the engine; `builtinKinds` is deliberately not among them. */
const CLAIM_FIELDS = ['workerId', 'queues', 'kinds', 'max', 'waitMs', 'fields'];

/** Claimed jobs as the answer sends them: whole, or only `fields` (and the id) of each. */
function answerOf(jobs: ClaimedJob[], fields: readonly ClaimedJobField[] | undefined): { jobs: ClaimedJob[] } {
  if (fields === undefined) return { jobs };
  return { jobs: jobs.map((job) => pickFields(job, fields)) };
}

export function workerHandlers(s: Services): HandlerGroup<WorkerMethods> {
  const { engine } = s;
  /** Runs a worker method and, if the params name a worker, records that it is alive. */
  const asWorker = async <T>(params: unknown, context: CallContext, action: () => Promise<T>): Promise<T> => {
    // The action starts before the first await (inside the caller's group commit); a worker is
    // recorded as alive only once its call has succeeded.
    const result = await action();
    if (isRecord(params) && typeof params.workerId === 'string') s.workerSeen(params.workerId, context.connection);
    return result;
  };

  return {
    'jobs.claim': async (params, context) => {
      const p = object(params, 'params', CLAIM_FIELDS);
      const waitMs = optionalInteger(p['waitMs'], 'waitMs', 0, LIMITS.maxWaitMs) ?? 0;
      const fields = optionalChoiceList(p['fields'], 'fields', CLAIMED_JOB_FIELDS);
      if (s.shuttingDown) throw new SpoolError(ErrorCode.ShuttingDown, 'The daemon is shutting down and hands out no more jobs. Claim again once it is back.');
      // The engine gets `fields` too: its claim then reads back only those of each job.
      const claimParams: Record<string, unknown> = { ...p };
      delete claimParams.waitMs;
      const engineParams = unvalidated<EngineClaimParams>(claimParams);
      const jobs = await asWorker(params, context, () => s.claim(engineParams));
      s.claimed(jobs);
      if (jobs.length > 0 || waitMs === 0) return answerOf(jobs, fields);
      const later = await s.claims.wait(engineParams, waitMs, context.connection);
      s.claimed(later);
      return answerOf(later, fields);
    },
    'jobs.heartbeat': async (params, context) => {
      const result = await s.writes.run(() => asWorker(params, context, () => engine.heartbeat(unvalidated<HeartbeatParams>(params))));
      s.upkeep.noteDue(result.leaseExpiresAt);
      return result;
    },
    'jobs.progress': async (params, context) => {
      await s.writes.run(() => asWorker(params, context, () => engine.progress(unvalidated<ProgressParams>(params))));
      return { ok: true };
    },
    'jobs.checkpoint': async (params, context) => {
      await s.writes.run(() => asWorker(params, context, () => engine.checkpoint(unvalidated<CheckpointParams>(params))));
      return { ok: true };
    },
    'jobs.log': async (params, context) => {
      await s.writes.run(() => asWorker(params, context, () => engine.log(unvalidated<LogParams>(params))));
      return { ok: true };
    },
    'jobs.complete': async (params, context) => {
      // Not through asWorker: the complete may run in a completeMany with others (group commit).
      const job = await s.writes.complete(unvalidated<CompleteParams>(params));
      if (isRecord(params) && typeof params.workerId === 'string') s.workerSeen(params.workerId, context.connection);
      return { job };
    },
    'jobs.completeMany': (params, context) => s.writes.run(() => asWorker(params, context, () => engine.completeBatch(unvalidated<CompleteManyParams>(params)))),
    'jobs.fail': async (params, context) => ({
      job: await s.writes.run(() => asWorker(params, context, () => engine.fail(unvalidated<FailParams>(params)))),
    }),
    'jobs.release': async (params, context) => ({
      job: await s.writes.run(() => asWorker(params, context, () => engine.release(unvalidated<ReleaseParams>(params)))),
    }),
    'jobs.snooze': async (params, context) => ({
      job: await s.writes.run(() => asWorker(params, context, () => engine.snooze(unvalidated<SnoozeParams>(params)))),
    }),
    'workers.register': async (params, context) => {
      const worker = await engine.registerWorker(unvalidated<RegisterWorkerParams>(params), 'remote');
      s.workerSeen(worker.id, context.connection);
      return { worker };
    },
    'workers.list': async (params) => {
      object(params, 'params', []);
      return { workers: await engine.listWorkers() };
    },
  };
}
