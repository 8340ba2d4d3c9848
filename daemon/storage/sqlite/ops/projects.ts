/**
 * Jobs as code: what a plan reads (every queue, template, schedule and ownership record), and
 * the writes of an apply, made in the one transaction the backend opens around them.
 */
import { SpoolError } from '../../../../shared/errors';
import { ErrorCode } from '../../../../shared/protocol';
import { TERMINAL_STATES, type JobState } from '../../../../shared/types';
import type { ApplyWrite, ProjectObjects, StoredTemplate } from '../../backend';
import type { SqliteContext } from './context';
import * as queues from './queues';
import { getSchedule } from './schedules';

export function projectObjects(ctx: SqliteContext): ProjectObjects {
  return {
    queues: queues.listQueues(ctx),
    templates: ctx.store.projects.templates(),
    schedules: ctx.store.schedules.all(),
    owned: ctx.store.projects.owned(),
  };
}

export function getTemplate(ctx: SqliteContext, name: string): StoredTemplate {
  const template = ctx.store.projects.template(name);
  if (!template) {
    throw new SpoolError(ErrorCode.TemplateNotFound, `No template named "${name}". Templates come from a jobs file: declare it under "templates" in spool.jsonc and run \`spool apply\`.`, { template: name });
  }
  return template;
}

const WAITING_AND_FINISHED: JobState[] = [...TERMINAL_STATES, 'queued', 'retrying'];

/** Makes one write of an apply; throws (rolling back the whole apply) when the store refuses it. */
export function applyWrite(ctx: SqliteContext, write: ApplyWrite): void {
  const now = ctx.now();
  switch (write.type) {
    case 'queue':
      if (write.action === 'delete') {
        queues.checkQueueDeletable(ctx, write.name, write.force);
        // All of them, in this transaction: an apply is all or nothing, and a queue a jobs file
        // deletes is rarely large (a huge one is better purged first, in batches).
        while (queues.purgeBatch(ctx, write.name, WAITING_AND_FINISHED) > 0);
        queues.deleteQueueRow(ctx, write.name);
        return;
      }
      queues.configureQueue(ctx, write.settings);
      if (write.paused !== undefined) ctx.store.queues.setPaused(write.name, write.paused, now);
      ctx.store.projects.own({ type: 'queue', name: write.name, project: write.project, applied: write.applied, now });
      // The owner is read with the cached settings.
      ctx.store.queues.invalidate();
      ctx.events.queue(write.name);
      return;
    case 'template':
      if (write.action === 'delete') {
        ctx.store.projects.deleteTemplate(write.name);
        return;
      }
      ctx.store.projects.putTemplate({ name: write.name, queue: write.queue, kind: write.kind, body: write.body, now });
      ctx.store.projects.own({ type: 'template', name: write.name, project: write.project, applied: write.applied, now });
      return;
    case 'schedule': {
      if (write.action === 'delete') {
        ctx.store.schedules.delete(write.name);
        return;
      }
      const s = write.schedule;
      const current = ctx.store.schedules.get(s.name);
      const nextRunAt = !s.enabled ? null : write.nextRunAt === undefined ? (current?.nextRunAt ?? null) : write.nextRunAt;
      const values = {
        name: s.name,
        cron: s.cron,
        timezone: s.timezone,
        queue: s.queue,
        job: JSON.stringify(s.job),
        enabled: s.enabled ? 1 : 0,
        missedPolicy: s.missedPolicy,
        nextRunAt,
        now,
        overlapPolicy: s.overlapPolicy,
        template: s.template,
        params: JSON.stringify(s.params),
      };
      if (current === undefined) ctx.store.schedules.insert(values);
      else ctx.store.schedules.update(values);
      ctx.store.projects.own({ type: 'schedule', name: s.name, project: write.project, applied: write.applied, now });
      getSchedule(ctx, s.name);
      return;
    }
  }
}
