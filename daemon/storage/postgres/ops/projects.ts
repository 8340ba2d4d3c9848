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
 * The queue writes of an apply (configure, delete) are those of ops/queues.ts, made inside the
 * apply's one transaction.
 */
import { SpoolError } from '../../../../shared/errors';
import { ErrorCode } from '../../../../shared/protocol';
import type { Queue } from '../../../../shared/types';
import type { ApplyDecision, ApplyWrite, ManagedType, ProjectObjects, StoredTemplate } from '../../backend';
import { emptyCounts, mapOwnership, mapTemplate } from '../../mappers';
import type { PgTx } from '../db';
import { findSchedule, getSchedule, insertSchedule, listSchedules, removeSchedule, writeSchedule } from './schedules';
import type { ScheduleWrite } from '../../mappers';
import { allCounts, allSettings, delayedCounts } from './upkeep';
import { deleteQueueNow, writeQueueSettings } from './queues';

/** The advisory lock key of applies (any constant apart from the migrations' one; "apply" in ASCII). */
const APPLY_LOCK = 0x6170706c79;



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
        await deleteQueueNow(tx, write.name, write.force);
        return;
      }
      await writeQueueSettings(tx, write.settings);
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
