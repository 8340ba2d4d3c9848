/** Handlers of the jobs.* methods a client (not a worker) calls. */
import { JOB_FIELDS, type BulkParams, type BulkUpdateParams, type EnqueueBatchParams, type EnqueueParams, type JobOutputParams, type ListJobsParams, type UpdateJobParams } from '../../../shared/protocol';
import { nonEmptyString, object, optionalBoolean, optionalChoiceList } from '../../../shared/domain/validate';
import { pickFields } from './fields';
import { unvalidated } from '../unvalidated';
import type { HandlerGroup, Services } from './types';

type JobMethods =
  | 'jobs.enqueue'
  | 'jobs.enqueueBatch'
  | 'jobs.get'
  | 'jobs.history'
  | 'jobs.list'
  | 'jobs.output'
  | 'jobs.cancel'
  | 'jobs.retry'
  | 'jobs.update'
  | 'jobs.delete'
  | 'jobs.cancelMany'
  | 'jobs.retryMany'
  | 'jobs.deleteMany'
  | 'jobs.runNow'
  | 'jobs.pause'
  | 'jobs.resume'
  | 'jobs.hold'
  | 'jobs.unhold'
  | 'jobs.updateMany'
  | 'jobs.holdMany'
  | 'jobs.unholdMany';

/** The id of a method that takes only `{id}`. */
function jobId(params: unknown): string {
  return nonEmptyString(object(params, 'params', ['id'])['id'], 'id');
}

export function jobHandlers(s: Services): HandlerGroup<JobMethods> {
  const { engine } = s;
  return {
    'jobs.enqueue': (params) => s.writes.enqueue(unvalidated<EnqueueParams>(params)),
    'jobs.enqueueBatch': async (params) => {
      const { fields: named, ...rest } = object(params, 'params', ['jobs', 'fields']);
      const fields = optionalChoiceList(named, 'fields', JOB_FIELDS);
      const answer = await engine.enqueueBatch(unvalidated<EnqueueBatchParams>(rest));
      return fields === undefined ? answer : { results: answer.results.map((result) => ({ ...result, job: pickFields(result.job, fields) })) };
    },
    'jobs.get': (params) => engine.getJob(jobId(params)),
    'jobs.history': (params) => engine.jobHistory(jobId(params)),
    'jobs.list': (params) => engine.listJobs(unvalidated<ListJobsParams>(params)),
    'jobs.output': (params) => engine.output(unvalidated<JobOutputParams>(params)),
    'jobs.cancel': async (params) => ({ job: await engine.cancel(jobId(params)) }),
    'jobs.retry': async (params) => ({ job: await engine.retry(jobId(params)) }),
    'jobs.update': async (params) => ({ job: await engine.update(unvalidated<UpdateJobParams>(params)) }),
    'jobs.delete': async (params) => {
      const o = object(params, 'params', ['id', 'cascade']);
      return { deleted: await engine.deleteJob(nonEmptyString(o['id'], 'id'), optionalBoolean(o['cascade'], 'cascade') ?? false) };
    },
    'jobs.cancelMany': (params) => engine.cancelMany(unvalidated<BulkParams>(params)),
    'jobs.retryMany': (params) => engine.retryMany(unvalidated<BulkParams>(params)),
    'jobs.deleteMany': (params) => engine.deleteMany(unvalidated<BulkParams>(params)),
    'jobs.runNow': async (params) => ({ job: await engine.runNow(jobId(params)) }),
    'jobs.pause': async (params) => ({ job: await engine.pauseJob(jobId(params)) }),
    'jobs.resume': async (params) => ({ job: await engine.resumeJob(jobId(params)) }),
    'jobs.hold': async (params) => ({ job: await engine.hold(jobId(params)) }),
    'jobs.unhold': async (params) => ({ job: await engine.unhold(jobId(params)) }),
    'jobs.updateMany': (params) => engine.updateMany(unvalidated<BulkUpdateParams>(params)),
    'jobs.holdMany': (params) => engine.holdMany(unvalidated<BulkParams>(params)),
    'jobs.unholdMany': (params) => engine.unholdMany(unvalidated<BulkParams>(params)),
  };
}
