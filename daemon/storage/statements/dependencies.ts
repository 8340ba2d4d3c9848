/**
 * Statements of dependencies between jobs (see ./index.ts for the protocol): the edges
 * (job_dependencies, keyed by the job waited for), the counts on the job rows, and the blocked
 * jobs' two ways out. The engine decides (daemon/engine/ops/dependencies.ts); these only write.
 *
 * Making dependents ready costs O(dependents) of the job that ended: its unresolved edges are
 * one range read of the edge table's key, and each dependent's `waiting_for` is lowered by one
 * UPDATE of rows found by primary key. Nothing ever scans the blocked jobs.
 */
import type { DependencyCondition, Job, JobDependency, JobState } from '../../../shared/protocol/types';

/** One edge: `jobId` waits for `dependsOnId` to end as `on` says; `resolved` once it has ended and been counted. */
export type DependencyEdge = {
  jobId: string;
  dependsOnId: string;
  on: DependencyCondition;
  resolved: boolean;
};

/** A number per job: new dependents of a job, or dependencies of a blocked job that ended as required. */
export type JobCount = { id: string; n: number };

/** A dependency as the job that has it sees it: the other job, and the edge's condition and resolution. */
export type StoredDependency = JobDependency & {
  /** The job that has the dependency. */
  jobId: string;
  resolved: boolean;
};

export type DependencySql = {
  /**
   * Adds `n` to the dependents of each job and returns the states they are in, locking their
   * rows for the rest of the transaction (PostgreSQL: an UPDATE, in id order), so that none can
   * end unseen between this read and the insert of its edges. A job that does not exist is
   * missing from the answer.
   */
  jobAddDependents(p: { counts: readonly JobCount[]; now: number }): { id: string; state: JobState }[];
  /** Inserts edges (each pair once). */
  dependencyInsertMany(edges: readonly DependencyEdge[]): void;
  /**
   * Jobs `ids` have ended: their unresolved edges are marked resolved, and the jobs waiting on
   * them come back with each edge's job ended and condition, in one statement for a batch of
   * completes (a job's edges after a user retry are counted again only if the retry reopened them).
   */
  dependencyResolve(ids: readonly string[]): { dependsOnId: string; jobId: string; on: DependencyCondition }[];
  /**
   * `n` more dependencies of each blocked or held job have ended as it required: its
   * waiting_for goes down by `n`, and at 0 a blocked one is queued (a held one stays held until
   * a user releases it). The jobs as left, those still blocked or held included; a job neither
   * blocked nor held (cancelled meanwhile) is left alone and missing from the answer.
   */
  jobDependenciesMet(p: { counts: readonly JobCount[]; now: number }): Job[];
  /** Blocked or held jobs → cancelled (finished now), `reason` their last error; the jobs cancelled. */
  jobCancelBlocked(p: { ids: readonly string[]; reason: string; now: number }): Job[];
  /** The dependencies of these jobs with the jobs they name as they are now, oldest named job first. */
  dependenciesOf(jobIds: readonly string[]): StoredDependency[];
  /**
   * The dependencies of one job, the jobs they name locked (PostgreSQL: FOR SHARE), so that none
   * ends unseen while a retry decides from them.
   */
  dependenciesForRetry(jobId: string): StoredDependency[];
  /** The jobs that depend on `id`, oldest first, at most `limit`. */
  dependentsOf(p: { id: string; limit: number }): JobDependency[];
  /** A retried job's edges: those to `waitingFor` unresolved again, the others resolved. */
  dependencyReopen(p: { jobId: string; waitingFor: readonly string[] }): void;
  /** Whether a job that has not ended (or is running) depends on `id`. */
  dependentsUnfinished(id: string): boolean;
};
