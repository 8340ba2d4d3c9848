/**
 * The commands the language server runs for its code lenses (`workspace/executeCommand`), and the
 * pure part of each: which job a schedule's "Run now" or a template's "Enqueue" sends, read from
 * the file as it is in the editor (not as last applied).
 */
import { resolveWorkflowParams, templateToJob, type DeclaredWorkflow } from '../../shared/jobsfile';
import type { Parsed } from '../../shared/domain/parsed';
import type { EnqueueParams } from '../../shared/protocol';
import type { JobsDocument } from './document';

/** The command names, as listed in the server's `executeCommandProvider`. */
export const COMMANDS = {
  /** [uri]: apply the file to the daemon (`project.apply`). */
  apply: 'spool.apply',
  /** [uri, schedule]: enqueue the schedule's job now. */
  runSchedule: 'spool.runSchedule',
  /** [uri, template]: enqueue the template with its defaults. */
  enqueueTemplate: 'spool.enqueueTemplate',
  /** [uri]: the plan of the file against the daemon, as text (null when the daemon cannot say). */
  plan: 'spool.plan',
  /**
   * [uri, workflow, params?]: start a run of the workflow as the file declares it now (sent as
   * `definition`), with `params` (name → value) and the defaults for the rest.
   */
  runWorkflow: 'spool.runWorkflow',
  /** [uri, workflow]: the workflow's parameters (`{params}`), for an editor to ask for their values before runWorkflow. */
  workflowParams: 'spool.workflowParams',
} as const;

/**
 * What a lens enqueues: a template by name with parameter values (what the daemon's
 * `templates.enqueue` takes), and the same job resolved from the file, for a daemon that does not
 * have the template (not applied yet, or a daemon without templates).
 */
export interface EnqueueTarget {
  template: string;
  params: Record<string, string>;
  /** The job as the file declares it now. */
  job: EnqueueParams;
}

/** The target of a schedule's "Run now" (its template with its parameters) or a template's "Enqueue". */
export function enqueueTarget(doc: JobsDocument, what: 'schedule' | 'template', name: string): Parsed<EnqueueTarget> {
  const schedule = what === 'schedule' ? doc.parse.partial.schedules.find((s) => s.name === name) : undefined;
  if (what === 'schedule' && schedule === undefined) return { ok: false, message: `The schedule "${name}" has errors or is not in the file; fix them first.` };
  const job = schedule !== undefined ? scheduleJob(doc, name) : templateJob(doc, name);
  if (!job.ok) return job;
  return { ok: true, value: { template: schedule?.template ?? name, params: schedule?.params ?? {}, job: job.value } };
}

/** The job a schedule's "Run now" enqueues: its template with the schedule's parameters. */
export function scheduleJob(doc: JobsDocument, name: string): Parsed<EnqueueParams> {
  const schedule = doc.parse.partial.schedules.find((s) => s.name === name);
  if (schedule === undefined) return { ok: false, message: `The schedule "${name}" has errors or is not in the file; fix them first.` };
  const template = doc.parse.partial.templates.find((t) => t.name === schedule.template);
  if (template === undefined) return { ok: false, message: `The schedule "${name}" names the template "${schedule.template}", which has errors or is not in the file.` };
  return templateToJob(template, schedule.params);
}

/** The job a template's "Enqueue" sends: the template with its parameters' defaults. */
export function templateJob(doc: JobsDocument, name: string): Parsed<EnqueueParams> {
  const template = doc.parse.partial.templates.find((t) => t.name === name);
  if (template === undefined) return { ok: false, message: `The template "${name}" has errors or is not in the file; fix them first.` };
  return templateToJob(template, {});
}

/** What a workflow's "Run workflow" sends: the workflow as the file declares it, and the values checked. */
export function workflowRunTarget(doc: JobsDocument, name: string, given: Readonly<Record<string, string>>): Parsed<{ workflow: DeclaredWorkflow; params: Record<string, string> }> {
  const workflow = doc.parse.workflows.find((w) => w.name === name);
  const broken = doc.parse.problems.some((p) => p.severity === 'error' && p.path[0] === 'workflows' && p.path[1] === name);
  if (workflow === undefined || broken) return { ok: false, message: `The workflow "${name}" has errors or is not in the file; fix them first.` };
  const values = resolveWorkflowParams(workflow, given);
  if (!values.ok) return { ok: false, message: `Cannot start a run: ${values.message}.` };
  return { ok: true, value: { workflow, params: { ...given } } };
}
