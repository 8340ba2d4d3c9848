/**
 * Jobs as code, written once for every store: what a plan reads (every queue, template,
 * schedule and ownership record), templates, and a project's apply.
 *
 * An apply is one write transaction: it reads every project object, the engine's plan
 * (decideApply in ../projects.ts, plain code) turns that into writes, and every write is made
 * before the commit; a write the store refuses rolls all of them back. Two applies never
 * interleave: the second plans against what the first committed, so nothing is created twice
 * (see projectLockApply).
 */
import { SpoolError } from '../../../shared/protocol/errors';
import type { ApplyProjectResult, Template } from '../../../shared/protocol';
import { ErrorCode } from '../../../shared/protocol';
import type { ApplyWrite, ProjectObjects } from '../projects';


import { sql, type Op } from '../../storage/statements';
import { decideApply, templateRecord, type ApplyInput } from '../projects';


import type { OpContext } from './context';
import { configureQueue, deleteQueueNow, listQueues } from './queues';
import { getSchedule, listSchedules } from './schedules';

/** Every queue (with counts and owner), template, workflow, schedule and ownership record, read in one snapshot. */
export function* projectObjects(c: OpContext): Op<ProjectObjects> {
  return {
    queues: yield* listQueues(c),
    templates: yield* sql('templateList'),
    workflows: yield* sql('workflowList'),
    schedules: yield* listSchedules(),
    owned: yield* sql('ownerList'),
  };
}

/** The project owning each template, by template name. */
function* templateOwners(): Op<Map<string, string>> {
  return new Map((yield* sql('ownerList')).filter((o) => o.type === 'template').map((o) => [o.name, o.project]));
}

/** Every template, by name, with its owner. */
export function* listTemplates(): Op<Template[]> {
  const templates = yield* sql('templateList');
  const owners = yield* templateOwners();
  return templates.map((t) => templateRecord(t, owners.get(t.name)));
}

/** One template with its owner. Rejects with TemplateNotFound. */
export function* getTemplate(name: string): Op<Template> {
  const template = yield* sql('templateGet', name);
  if (!template) {
    throw new SpoolError(ErrorCode.TemplateNotFound, `No template named "${name}". Templates come from a jobs file: declare it under "templates" in spool.jsonc and run \`spool apply\`.`, { template: name });
  }
  return templateRecord(template, (yield* templateOwners()).get(name));
}

/** A project's apply, all or nothing, in the caller's one write transaction. */
export function* applyProject(c: OpContext, input: ApplyInput): Op<ApplyProjectResult> {
  yield* sql('projectLockApply');
  const decision = decideApply(input, yield* projectObjects(c), c.now());
  for (const write of decision.writes) yield* applyWrite(c, write);
  return decision.result;
}

/** Makes one write of an apply; throws (rolling back the whole apply) when the store refuses it. */
function* applyWrite(c: OpContext, write: ApplyWrite): Op<void> {
  const now = c.now();
  switch (write.type) {
    case 'queue':
      if (write.action === 'delete') {
        yield* deleteQueueNow(c, write.name, write.force);
        return;
      }
      yield* configureQueue(c, write.settings);
      if (write.paused !== undefined) yield* sql('queueSetPaused', { name: write.name, paused: write.paused, now });
      yield* sql('ownerPut', { type: 'queue', name: write.name, project: write.project, applied: write.applied, now });
      c.changes.queue(write.name);
      return;
    case 'template':
      if (write.action === 'delete') {
        yield* sql('templateDelete', write.name);
        return;
      }
      yield* sql('templatePut', { name: write.name, queue: write.queue, kind: write.kind, body: write.body, now });
      yield* sql('ownerPut', { type: 'template', name: write.name, project: write.project, applied: write.applied, now });
      return;
    case 'workflow':
      if (write.action === 'delete') {
        yield* sql('workflowDelete', write.name);
        return;
      }
      yield* sql('workflowPut', { name: write.name, body: write.body, now });
      yield* sql('ownerPut', { type: 'workflow', name: write.name, project: write.project, applied: write.applied, now });
      return;
    case 'schedule': {
      if (write.action === 'delete') {
        yield* sql('scheduleDelete', write.name);
        return;
      }
      const s = write.schedule;
      const current = yield* sql('scheduleGetForUpdate', s.name);
      const values = {
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
        // A schedule that starts a workflow has no template: its params are the run's values.
        template: s.workflow === undefined ? s.template : null,
        params: JSON.stringify(s.params),
        workflow: s.workflow ?? null,
      };
      if (current === undefined) yield* sql('scheduleInsert', values);
      else yield* sql('scheduleUpdate', values);
      yield* sql('ownerPut', { type: 'schedule', name: s.name, project: write.project, applied: write.applied, now });
      // Read back through the template check: a schedule that could not be read again is refused now.
      yield* getSchedule(s.name);
      return;
    }
  }
}

