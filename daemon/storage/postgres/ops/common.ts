/**
 * What several PostgreSQL operations share: reading a job, a queue's settings (creating the
 * queue with the defaults on first use), and inserting new jobs (enqueue, schedules, templates).
 */
import type { EnqueueResult } from '../../../../shared/protocol';
import { jobNotFound } from '../../../../shared/errors';
import type { Job } from '../../../../shared/types';
import type { EnqueueInput } from '../../../engine/validate/jobs';
import { jobInsert, type JobInsert } from '../../jobInsert';
import { mapJob, mapSettings, newJob, type QueueSettings } from '../../mappers';
import type { PgTx } from '../db';

/** The job columns every read of a whole job selects (a `j.` prefix where joined). */
export const JOB_COLUMNS = `id, queue, kind, payload, priority, weight, state, run_at, attempts, max_attempts, runs,
  backoff_strategy, backoff_base_ms, backoff_cap_ms, backoff_jitter, timeout_ms, lease_expires_at, worker_id,
  claimed_from, idempotency_key, progress, progress_message, checkpoint, result, last_error, cancel_requested,
  tags, context, output_seq, output_lines, output_dropped, created_at, updated_at, started_at, finished_at`;

/** The job columns, each prefixed with `jobs.` (for UPDATE … FROM, where `id` alone is ambiguous). */
export const JOBS_DOT_COLUMNS = JOB_COLUMNS.split(',')
  .map((c) => `jobs.${c.trim()}`)
  .join(', ');

/** One job, or undefined; `lock` takes its row lock for the rest of the transaction. */
export async function findJob(tx: PgTx, id: string, lock = false): Promise<Job | undefined> {
  const row = await tx.row(`SELECT ${JOB_COLUMNS} FROM jobs WHERE id = $1${lock ? ' FOR UPDATE' : ''}`, [id]);
  return row === undefined ? undefined : mapJob(row);
}

/** One job; rejects with JobNotFound. */
export async function getJobRow(tx: PgTx, id: string, lock = false): Promise<Job> {
  const job = await findJob(tx, id, lock);
  if (job === undefined) throw jobNotFound(id);
  return job;
}

export async function queueSettings(tx: PgTx, name: string, lock = false): Promise<QueueSettings | undefined> {
  const row = await tx.row(`SELECT * FROM queues WHERE name = $1${lock ? ' FOR UPDATE' : ''}`, [name]);
  return row === undefined ? undefined : mapSettings(row);
}

/** A queue's settings; a queue not seen before is created with the defaults (its first job creates it). */
export async function ensureQueue(tx: PgTx, name: string): Promise<QueueSettings> {
  const existing = await queueSettings(tx, name);
  if (existing) return existing;
  const d = tx.policy.queueDefaults;
  const now = tx.now();
  const inserted = await tx.run(
    `INSERT INTO queues (name, concurrency, paused, default_max_attempts, backoff_strategy, backoff_base_ms, backoff_cap_ms,
       backoff_jitter, default_timeout_ms, retention_ms, created_at, updated_at)
     VALUES ($1, $2, 0, $3, $4, $5, $6, $7, $8, $9, $10, $10) ON CONFLICT (name) DO NOTHING`,
    [name, d.concurrency, d.maxAttempts, d.backoff.strategy, d.backoff.baseMs, d.backoff.capMs, d.backoff.jitter, d.timeoutMs, d.retentionMs, now],
  );
  // Another daemon may have created it a moment ago: then it is theirs to announce.
  if (inserted > 0) tx.queue(name);
  const created = await queueSettings(tx, name);
  if (!created) throw new Error(`Queue "${name}" was inserted but cannot be read back`);
  return created;
}

/** The stored form of a new job (the queue's defaults filled in), as every store makes it. */
export function toInsert(tx: PgTx, input: EnqueueInput, queue: QueueSettings, now: number): JobInsert {
  return jobInsert(tx.policy, input, queue, now);
}

/**
 * Inserts new jobs in one statement (arrays unnested: one round trip whatever the count), and
 * records them. A job whose idempotency key another transaction inserted meanwhile is not
 * inserted: `skipped` holds its index, and the caller reads the winner.
 */
export async function insertJobs(tx: PgTx, rows: readonly JobInsert[]): Promise<{ jobs: (Job | null)[] }> {
  if (rows.length === 0) return { jobs: [] };
  const col = <K extends keyof JobInsert>(k: K): JobInsert[K][] => rows.map((r) => r[k]);
  const inserted = await tx.rows(
    `INSERT INTO jobs (id, queue, kind, payload, priority, weight, state, run_at, max_attempts, backoff_strategy, backoff_base_ms,
       backoff_cap_ms, backoff_jitter, timeout_ms, idempotency_key, tags, context, created_at, updated_at)
     SELECT id, queue, kind, payload, priority, weight, 'queued', run_at, max_attempts, backoff_strategy, backoff_base_ms,
       backoff_cap_ms, backoff_jitter, timeout_ms, idempotency_key, tags, context, $18, $18
     FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::int[], $6::int[], $7::bigint[], $8::int[], $9::text[],
       $10::bigint[], $11::bigint[], $12::float8[], $13::bigint[], $14::text[], $15::text[], $16::text[], $17::bigint[])
       AS t(id, queue, kind, payload, priority, weight, run_at, max_attempts, backoff_strategy, backoff_base_ms,
         backoff_cap_ms, backoff_jitter, timeout_ms, idempotency_key, tags, context, ord)
     ORDER BY ord
     ON CONFLICT (idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
     RETURNING id`,
    [
      col('id'), col('queue'), col('kind'), col('payload'), col('priority'), col('weight'), col('runAt'), col('maxAttempts'),
      col('backoffStrategy'), col('backoffBaseMs'), col('backoffCapMs'), col('backoffJitter'), col('timeoutMs'),
      col('idempotencyKey'), col('tags'), col('context'), rows.map((_, i) => i), rows[0]?.now ?? tx.now(),
    ],
  );
  const ids = new Set(inserted.map((r) => r.get('id')));
  const jobs = rows.map((r) => (ids.has(r.id) ? newJob(r) : null));
  for (const job of jobs) if (job) tx.job(job);
  return { jobs };
}

async function byKey(tx: PgTx, key: string): Promise<Job | undefined> {
  const row = await tx.row(`SELECT ${JOB_COLUMNS} FROM jobs WHERE idempotency_key = $1`, [key]);
  return row === undefined ? undefined : mapJob(row);
}

/** One job, inside the caller's transaction. A known idempotency key returns its job as it is. */
export async function enqueueOne(tx: PgTx, input: EnqueueInput): Promise<EnqueueResult> {
  return (await enqueueMany(tx, [input]))[0] as EnqueueResult;
}

/**
 * Many jobs, inside the caller's transaction, inserted together. Each queue's settings are read
 * once. A key repeated within the batch gets the job its first use created; a key another
 * daemon inserted while this one ran gets that daemon's job.
 */
export async function enqueueMany(tx: PgTx, inputs: readonly EnqueueInput[]): Promise<EnqueueResult[]> {
  const now = tx.now();
  const queues = new Map<string, QueueSettings>();
  const slots: ({ existing: Job } | { insert: number; created: boolean })[] = [];
  const inserts: JobInsert[] = [];
  const insertedKeys = new Map<string, number>();
  const keys = [...new Set(inputs.map((i) => i.idempotencyKey).filter((k): k is string => k !== null))];
  const known = new Map<string, Job>();
  if (keys.length > 0) {
    for (const row of await tx.rows(`SELECT ${JOB_COLUMNS} FROM jobs WHERE idempotency_key = ANY($1::text[])`, [keys])) {
      const job = mapJob(row);
      if (job.idempotencyKey !== null) known.set(job.idempotencyKey, job);
    }
  }
  for (const input of inputs) {
    const key = input.idempotencyKey;
    if (key !== null) {
      const inBatch = insertedKeys.get(key);
      if (inBatch !== undefined) {
        slots.push({ insert: inBatch, created: false });
        continue;
      }
      const existing = known.get(key);
      if (existing) {
        slots.push({ existing });
        continue;
      }
    }
    let queue = queues.get(input.queue);
    if (queue === undefined) {
      queue = await ensureQueue(tx, input.queue);
      queues.set(input.queue, queue);
    }
    if (key !== null) insertedKeys.set(key, inserts.length);
    slots.push({ insert: inserts.length, created: true });
    inserts.push(toInsert(tx, input, queue, now));
  }
  const { jobs } = await insertJobs(tx, inserts);
  const results: EnqueueResult[] = [];
  for (const slot of slots) {
    if ('existing' in slot) {
      results.push({ job: slot.existing, created: false });
      continue;
    }
    const job = jobs[slot.insert];
    if (job) {
      results.push({ job, created: slot.created });
      continue;
    }
    // Lost a race on the key to another daemon's commit: its job is the one.
    const key = inserts[slot.insert]?.idempotencyKey;
    const winner = key ? await byKey(tx, key) : undefined;
    if (!winner) throw new Error('An enqueue lost its idempotency key to another transaction whose job cannot be read');
    results.push({ job: winner, created: false });
  }
  return results;
}
