/**
 * The notification a daemon sends with a commit that changed something, for the other daemons
 * on the same database (./notify.ts listens for it): which queues to wake, which jobs and queues
 * changed. One per transaction, never one per job: every notifying commit takes a cluster-wide
 * lock (PreCommit_Notify in PostgreSQL's async.c), so a batch of a thousand enqueues notifies once.
 *
 * PostgreSQL refuses a payload of 8,000 bytes or more. When the job ids do not fit, the notice
 * names the queues of the changed jobs and the earliest update time instead, and a reader reads
 * those queues' jobs changed since then; when even that does not fit (very many queues), it says
 * "everything since", and a reader wakes every queue.
 */
import type { Job } from '../../../shared/protocol/types';
import type { TxChanges } from './db';

/** The channel every daemon of a database sends on and listens to. */
export const CHANNEL = 'spool_changes';

/** More kinds than this in one transaction are sent as "any kind". */
const MAX_KINDS = 20;

/** Below PostgreSQL's 8,000-byte limit, with room to spare. */
const MAX_PAYLOAD_BYTES = 7900;

/** What one notification says. */
export interface Notice {
  /** The sending store's instance id: a daemon ignores what it sent itself. */
  from: string;
  /** Queue → when its jobs may be claimed (epoch ms; 0: now). */
  wake: Record<string, number>;
  /** The kinds of the jobs behind `wake`; absent when there were too many to list (any kind). */
  kinds?: string[];
  /** Queue → true when deleted, false when created or changed. */
  queues: Record<string, boolean>;
  /**
   * Jobs deleted, as they were last (without payload, result, checkpoint and context): they
   * cannot be read back. In the compact forms their queues are named as changed instead.
   */
  deleted?: Job[];
  /** Ids of the jobs that changed; absent in the compact form. */
  jobs?: string[];
  /** The compact form: the jobs of these queues changed since `since`. */
  jobsIn?: string[];
  since?: number;
  /**
   * Jobs that got output lines: id → [queue, seq of the first new line]. A daemon where someone
   * follows such a job reads the lines back from there; the others ignore it.
   */
  output?: Record<string, [string, number]>;
  /** Tokens revoked: every daemon closes the sessions logged in with them (kept in every form). */
  tokens?: string[];
  /** The smallest form: every queue may have work, and any job may have changed since `since`. */
  all?: true;
}

/** The payload for a committed transaction's changes, or null when it changed nothing others care about. */
export function encodeNotice(from: string, changes: TxChanges, now: number): string | null {
  const nothing = changes.wokenQueues.size === 0 && changes.changedJobs.size === 0 && changes.changedQueues.size === 0;
  if (nothing && changes.revokedTokens.size === 0 && changes.deletedJobs.size === 0 && changes.outputJobs.size === 0) return null;
  const output =
    changes.outputJobs.size > 0 ? { output: Object.fromEntries([...changes.outputJobs].map(([id, o]) => [id, [o.queue, o.first]])) as Record<string, [string, number]> } : {};
  // A revoke is one short name per transaction: it always fits, and is kept in every form.
  const tokens = changes.revokedTokens.size > 0 ? { tokens: [...changes.revokedTokens] } : {};
  const wake: Record<string, number> = {};
  for (const [queue, due] of changes.wokenQueues) wake[queue] = due <= now ? 0 : due;
  const queues = Object.fromEntries(changes.changedQueues);
  const since = Number.isFinite(changes.changedSince) ? changes.changedSince : now;
  const kinds = changes.wokenKinds.size <= MAX_KINDS ? { kinds: [...changes.wokenKinds] } : {};
  const deleted = changes.deletedJobs.size > 0 ? { deleted: [...changes.deletedJobs.values()].map((job) => ({ ...job, payload: null, result: null, checkpoint: null, context: null })) } : {};
  const full: Notice = { from, wake, ...kinds, queues, ...tokens, ...output, ...deleted, jobs: [...changes.changedJobs.keys()] };
  let text = JSON.stringify(full);
  if (Buffer.byteLength(text) <= MAX_PAYLOAD_BYTES) return text;
  // The deleted jobs do not fit: their queues are named as changed (a view reads them again).
  const withDeletedQueues = { ...queues };
  for (const job of changes.deletedJobs.values()) withDeletedQueues[job.queue] ??= false;
  const compact: Notice = { from, wake, ...kinds, queues: withDeletedQueues, ...tokens, ...output, jobsIn: [...changes.changedJobQueues], since };
  text = JSON.stringify(compact);
  if (Buffer.byteLength(text) <= MAX_PAYLOAD_BYTES) return text;
  return JSON.stringify({ from, wake: {}, queues: {}, ...tokens, all: true, since } satisfies Notice);
}

/** A payload read back; null for one this version cannot read (another program on the channel). */
export function decodeNotice(payload: string): Notice | null {
  let value: unknown;
  try {
    value = JSON.parse(payload);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const from: unknown = Reflect.get(value, 'from');
  const wake = numberRecord(Reflect.get(value, 'wake'));
  const queues = booleanRecord(Reflect.get(value, 'queues'));
  if (typeof from !== 'string' || wake === null || queues === null) return null;
  const notice: Notice = { from, wake, queues };
  const kinds = stringList(Reflect.get(value, 'kinds'));
  if (kinds !== null) notice.kinds = kinds;
  const jobs = stringList(Reflect.get(value, 'jobs'));
  if (jobs !== null) notice.jobs = jobs;
  const tokens = stringList(Reflect.get(value, 'tokens'));
  if (tokens !== null) notice.tokens = tokens;
  const output: unknown = Reflect.get(value, 'output');
  if (typeof output === 'object' && output !== null && !Array.isArray(output)) {
    notice.output = {};
    for (const [id, entry] of Object.entries(output)) {
      if (Array.isArray(entry) && typeof entry[0] === 'string' && typeof entry[1] === 'number') notice.output[id] = [entry[0], entry[1]];
    }
  }
  const deleted: unknown = Reflect.get(value, 'deleted');
  if (Array.isArray(deleted)) notice.deleted = deleted.filter(isDeletedJob);
  const jobsIn = stringList(Reflect.get(value, 'jobsIn'));
  if (jobsIn !== null) notice.jobsIn = jobsIn;
  const since: unknown = Reflect.get(value, 'since');
  if (typeof since === 'number') notice.since = since;
  if (Reflect.get(value, 'all') === true) notice.all = true;
  return notice;
}

function numberRecord(value: unknown): Record<string, number> | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const out: Record<string, number> = {};
  for (const [key, v] of Object.entries(value)) if (typeof v === 'number') out[key] = v;
  return out;
}

function booleanRecord(value: unknown): Record<string, boolean> | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const out: Record<string, boolean> = {};
  for (const [key, v] of Object.entries(value)) if (typeof v === 'boolean') out[key] = v;
  return out;
}

function stringList(value: unknown): string[] | null {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : null;
}

/** A deleted job as a notice carries it: sent by a daemon of this version, so the shape is its own; checked for what the receiver reads. */
function isDeletedJob(value: unknown): value is Job {
  if (typeof value !== 'object' || value === null) return false;
  const fields = ['id', 'queue', 'kind', 'state'].map((key) => Reflect.get(value, key));
  return fields.every((field) => typeof field === 'string') && typeof Reflect.get(value, 'updatedAt') === 'number';
}
