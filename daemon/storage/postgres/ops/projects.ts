/**
 * Jobs as code: templates, ownership records, and a project's apply.
 *
 * An apply is one transaction: it reads every project object, the engine's plan (`decide`,
 * synchronous) turns that into writes, and every write is made before the commit; a write the
 * store refuses rolls all of them back. Applies are serialized across every daemon on the
 * database by a transaction-level advisory lock taken before the read: under read committed a
 * second apply then reads what the first committed, and plans against it, so nothing is created
 * twice and no apply plans against a stale read. The lock goes with the commit or rollback.
 *
 * The queue writes an apply makes (configure, pause, delete) are written here rather than
 * borrowed from ops/queues.ts, so that this file holds everything an apply does in its one
 * transaction.
 */
import { SpoolError } from '../../../../shared/errors';
import { ErrorCode } from '../../../../shared/protocol';
import type { Queue, ResourceLimits } from '../../../../shared/types';
import type { ConfigureInput } from '../../../engine/validate/queues';
import type { ApplyDecision, ApplyWrite, ManagedType, Ownership, ProjectObjects, StoredTemplate } from '../../backend';
import { queueNotFound } from '../../errors';
import { emptyCounts, mapSettings, oneOf } from '../../mappers';
import { int, text, type Row } from '../../rows';
import type { PgTx } from '../db';
import { ensureQueue } from './common';
import { findSchedule, getSchedule, insertSchedule, listSchedules, removeSchedule, writeSchedule, type ScheduleWrite } from './schedules';
import { allCounts, allSettings, delayedCounts } from './upkeep';

/** The advisory lock key of applies (any constant apart from the migrations' one; "apply" in ASCII). */
const APPLY_LOCK = 0x6170706c79;

const TYPES: readonly ManagedType[] = ['queue', 'template', 'schedule'];

function mapTemplate(row: Row): StoredTemplate {
  return {
    name: text(row, 'name'),
    queue: text(row, 'queue'),
    kind: text(row, 'kind'),
    body: text(row, 'body'),
    createdAt: int(row, 'created_at'),
    updatedAt: int(row, 'updated_at'),
  };
}

function mapOwnership(row: Row): Ownership {
  return {
    type: oneOf(row, 'type', TYPES),
    name: text(row, 'name'),
    project: text(row, 'project'),
    applied: text(row, 'applied'),
    appliedAt: int(row, 'applied_at'),
  };
}

/** Every queue with its counts, delayed count and owner. */
async function listQueues(tx: PgTx): Promise<Queue[]> {
  const counts = await allCounts(tx);
  const delayed = await delayedCounts(tx, tx.now());
  return (await allSettings(tx)).map((s) => ({ ...s, counts: counts.get(s.name) ?? emptyCounts(), delayed: delayed.get(s.name) ?? 0 }));
}

export async function projectObjects(tx: PgTx): Promise<ProjectObjects> {
  return {
    queues: await listQueues(tx),
    templates: await listTemplates(tx),
    schedules: await listSchedules(tx),
    owned: (await tx.rows('SELECT * FROM managed_objects ORDER BY type, name')).map(mapOwnership),
  };
}

export async function listTemplates(tx: PgTx): Promise<StoredTemplate[]> {
  return (await tx.rows('SELECT * FROM templates ORDER BY name')).map(mapTemplate);
}

export async function getTemplate(tx: PgTx, name: string): Promise<StoredTemplate> {
  const row = await tx.row('SELECT * FROM templates WHERE name = $1', [name]);
  if (!row) {
    throw new SpoolError(ErrorCode.TemplateNotFound, `No template named "${name}". Templates come from a jobs file: declare it under "templates" in spool.jsonc and run \`spool apply\`.`, { template: name });
  }
  return mapTemplate(row);
}

export async function applyProject<T>(tx: PgTx, decide: (objects: ProjectObjects) => ApplyDecision<T>): Promise<T> {
  await tx.run('SELECT pg_advisory_xact_lock($1)', [APPLY_LOCK]);
  const decision = decide(await projectObjects(tx));
  for (const write of decision.writes) await applyWrite(tx, write);
  return decision.result;
}

/** Records `project` as the owner of an object and `applied` as what it declared. */
async function own(tx: PgTx, type: ManagedType, name: string, project: string, applied: string): Promise<void> {
  await tx.run(
    `INSERT INTO managed_objects (type, name, project, applied, applied_at) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (type, name) DO UPDATE SET project = EXCLUDED.project, applied = EXCLUDED.applied, applied_at = EXCLUDED.applied_at`,
    [type, name, project, applied, tx.now()],
  );
}

/** Makes one write of an apply; throws (rolling back the whole apply) when the store refuses it. */
async function applyWrite(tx: PgTx, write: ApplyWrite): Promise<void> {
  const now = tx.now();
  switch (write.type) {
    case 'queue':
      if (write.action === 'delete') {
        await deleteQueue(tx, write.name, write.force);
        return;
      }
      await configureQueue(tx, write.settings);
      if (write.paused !== undefined) await tx.run('UPDATE queues SET paused = $2, updated_at = $3 WHERE name = $1', [write.name, write.paused ? 1 : 0, now]);
      await own(tx, 'queue', write.name, write.project, write.applied);
      tx.queue(write.name);
      return;
    case 'template':
      if (write.action === 'delete') {
        // Its ownership record goes with it (trigger templates_unmanage).
        await tx.run('DELETE FROM templates WHERE name = $1', [write.name]);
        return;
      }
      await tx.run(
        `INSERT INTO templates (name, queue, kind, body, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $5)
         ON CONFLICT (name) DO UPDATE SET queue = EXCLUDED.queue, kind = EXCLUDED.kind, body = EXCLUDED.body, updated_at = EXCLUDED.updated_at`,
        [write.name, write.queue, write.kind, write.body, now],
      );
      await own(tx, 'template', write.name, write.project, write.applied);
      return;
    case 'schedule': {
      if (write.action === 'delete') {
        await removeSchedule(tx, write.name);
        return;
      }
      const s = write.schedule;
      const current = await findSchedule(tx, s.name);
      const values: ScheduleWrite = {
        name: s.name,
        cron: s.cron,
        timezone: s.timezone,
        queue: s.queue,
        job: JSON.stringify(s.job),
        enabled: s.enabled ? 1 : 0,
        missedPolicy: s.missedPolicy,
        nextRunAt: !s.enabled ? null : write.nextRunAt === undefined ? (current?.nextRunAt ?? null) : write.nextRunAt,
        now,
        overlapPolicy: s.overlapPolicy,
        template: s.template,
        params: JSON.stringify(s.params),
      };
      if (current === undefined) await insertSchedule(tx, values);
      else await writeSchedule(tx, values);
      await own(tx, 'schedule', s.name, write.project, write.applied);
      // Read back through the template check: a schedule the store could not read again is refused now.
      await getSchedule(tx, s.name);
      return;
    }
  }
}

/** A queue's limits after `changes`: null removes them all, a field null removes that one. */
function changedLimits(current: ResourceLimits, changes: ConfigureInput['limits']): ResourceLimits {
  if (changes === undefined) return current;
  if (changes === null) return {};
  const limits: ResourceLimits = { ...current };
  for (const key of ['memoryBytes', 'cpuSeconds', 'openFiles', 'processes'] as const) {
    const change = changes[key];
    if (change === null) delete limits[key];
    else if (change !== undefined) limits[key] = change;
  }
  return limits;
}

/** Changes a queue's settings, creating it if new (as queues.configure does). */
async function configureQueue(tx: PgTx, input: ConfigureInput): Promise<void> {
  await ensureQueue(tx, input.name);
  // Locked and read again: a claim drawing on the rate bucket, or another configure, waits; an
  // enqueue into the queue (its foreign key check takes FOR KEY SHARE) does not.
  const row = await tx.row('SELECT * FROM queues WHERE name = $1 FOR NO KEY UPDATE', [input.name]);
  if (!row) throw queueNotFound(input.name);
  const current = mapSettings(row);
  const backoff = tx.policy.mergeBackoff(current.defaultBackoff, input.defaultBackoff ?? {}, 'defaultBackoff');
  const rate = input.rateLimit === undefined ? current.rateLimit : input.rateLimit;
  const limits = changedLimits(current.limits, input.limits);
  await tx.run(
    `UPDATE queues SET concurrency = $2,
       rate_tokens = CASE WHEN rate_per_second IS NOT DISTINCT FROM $3::float8 AND rate_burst IS NOT DISTINCT FROM $4::int THEN rate_tokens ELSE NULL END,
       rate_per_second = $3, rate_burst = $4, default_max_attempts = $5, backoff_strategy = $6, backoff_base_ms = $7,
       backoff_cap_ms = $8, backoff_jitter = $9, default_timeout_ms = $10, retention_ms = $11, limit_memory_bytes = $12,
       limit_cpu_seconds = $13, limit_open_files = $14, limit_processes = $15, updated_at = $16
     WHERE name = $1`,
    [
      input.name,
      input.concurrency === undefined ? current.concurrency : input.concurrency,
      rate?.perSecond ?? null,
      rate?.burst ?? null,
      input.defaultMaxAttempts ?? current.defaultMaxAttempts,
      backoff.strategy,
      backoff.baseMs,
      backoff.capMs,
      backoff.jitter,
      input.defaultTimeoutMs ?? current.defaultTimeoutMs,
      input.retentionMs === undefined ? current.retentionMs : input.retentionMs,
      limits.memoryBytes ?? null,
      limits.cpuSeconds ?? null,
      limits.openFiles ?? null,
      limits.processes ?? null,
      tx.now(),
    ],
  );
}

function jobsLeft(name: string, running: number, total: number, force: boolean): void {
  if (running > 0) {
    throw new SpoolError(ErrorCode.InvalidState, `Cannot delete queue "${name}": ${running} job(s) are running. Pause it, wait for them or cancel them, then delete.`, { queue: name });
  }
  if (total > 0 && !force) {
    throw new SpoolError(ErrorCode.InvalidState, `Queue "${name}" still has ${total} job(s). Purge it first, or delete it with force (spool queue ${name} delete --force; queues.delete with force: true) to remove them too.`, { queue: name });
  }
}

/**
 * Deletes a queue: refused while jobs run, and without `force` while any job is left; with
 * `force` its waiting and finished jobs go first, all in this transaction (an apply is all or
 * nothing, and a queue a jobs file deletes is rarely large). The queue row is locked first, so
 * no job can be added to it meanwhile; a job another daemon claims between the check and the
 * delete is found by the check after it, and refuses the delete as a running job would.
 */
async function deleteQueue(tx: PgTx, name: string, force: boolean): Promise<void> {
  if (!(await tx.row('SELECT name FROM queues WHERE name = $1 FOR UPDATE', [name]))) throw queueNotFound(name);
  const counts = (await allCounts(tx, name)).get(name) ?? emptyCounts();
  jobsLeft(name, counts.running, Object.values(counts).reduce((a, b) => a + b, 0), force);
  if (force) await tx.run(`DELETE FROM jobs WHERE queue = $1 AND state <> 'running'`, [name]);
  const left = await tx.row(`SELECT count(*) FILTER (WHERE state = 'running') AS running, count(*) AS total FROM jobs WHERE queue = $1`, [name]);
  jobsLeft(name, Number(left?.get('running') ?? 0), Number(left?.get('total') ?? 0), false);
  await tx.run('DELETE FROM queues WHERE name = $1', [name]);
  await tx.run('DELETE FROM queue_counts WHERE queue = $1', [name]);
  tx.queue(name, true);
}
