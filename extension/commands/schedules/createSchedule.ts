/**
 * Create Schedule: name → time zone → cron expression → queue → the job, with the same steps as
 * Enqueue Job (kind, command / request / payload, options). While the cron is typed, the step
 * shows it in words with the next three fire times in the chosen zone and in local time, or the
 * field at fault. Every step has Back and keeps its answer. Called with a `CreateScheduleParams`
 * object it creates that directly.
 */
import * as vscode from 'vscode';
import { DEFAULT_TIMEZONE, describeCron } from '../../../shared/domain/cron';
import { fireTimesText } from '../../../shared/domain/present';
import type { CreateScheduleParams } from '../../../shared/protocol';
import type { Schedule } from '../../../shared/protocol/types';
import type { SpoolContext } from '../../context';
import { assertMayEnqueue } from '../../trust';
import { command } from '../command';
import { draftJob, type JobDraft } from '../steps/draft';
import { runSteps, settle, type Step } from '../steps/flow';
import { kindStep, optionsStep, payloadSteps, queueStep, recent, rememberDraft } from '../steps/jobSteps';
import { TEMPLATE_OPTIONS, cronPreview, localTimeZone, nameProblem, zoneProblem } from '../steps/rules';
import { knownTimezones } from '../../../shared/jobsfile';

function isCreateParams(value: unknown): value is CreateScheduleParams {
  return typeof value === 'object' && value !== null && 'name' in value && 'cron' in value && 'queue' in value && 'job' in value;
}

const TITLE = 'Spool: Create Schedule';

/** The schedule's answers so far, the job's among them. */
interface ScheduleDraft extends JobDraft {
  name?: string;
  timezone?: string;
  cron?: string;
}

function scheduleSteps(ctx: SpoolContext, queues: Parameters<typeof queueStep>[0], taken: ReadonlySet<string>): Step<ScheduleDraft>[] {
  const local = localTimeZone();
  // Every zone the runtime knows, so that typing "paris" finds Europe/Paris in the list.
  const first = [{ label: DEFAULT_TIMEZONE, description: 'the default' }, ...(local !== DEFAULT_TIMEZONE ? [{ label: local, description: 'this computer’s zone' }] : [])];
  const zones = [...first, ...knownTimezones().filter((z) => !first.some((f) => f.label === z)).map((label) => ({ label }))];
  return [
    {
      run: async (input, state) =>
        settle(
          await input.text({
            prompt: 'Schedule name',
            placeholder: 'nightly-build',
            value: state.name,
            check: (v) => nameProblem('schedule', v) ?? (taken.has(v.trim()) ? `A schedule named "${v.trim()}" exists already: choose another name, or delete that one first.` : null),
          }),
          (name) => (state.name = name.trim()),
        ),
    },
    {
      run: async (input, state) =>
        settle(
          await input.pickOrType({
            placeholder: 'Time zone the cron expression is read in: pick one or type an IANA name (Europe/Paris)',
            items: zones,
            value: state.timezone,
            typedLabel: (typed) => `$(globe) ${typed}`,
            check: zoneProblem,
          }),
          (timezone) => (state.timezone = timezone.trim()),
        ),
    },
    {
      run: async (input, state) =>
        settle(
          await input.text({
            prompt: `Cron expression: 5 fields (minute hour day month weekday), or 6 with seconds first; read in ${state.timezone ?? DEFAULT_TIMEZONE}`,
            placeholder: '0 3 * * 1-5',
            value: state.cron,
            check: (v) => {
              // From the instant of each keystroke, so the fire times shown are the next ones.
              const preview = cronPreview(v, state.timezone ?? DEFAULT_TIMEZONE, Date.now(), local);
              return preview.ok ? { note: preview.message } : preview.message;
            },
          }),
          (cron) => (state.cron = cron.trim()),
        ),
    },
    queueStep<ScheduleDraft>(queues, recent(ctx, 'queue')),
    kindStep<ScheduleDraft>(),
    ...payloadSteps<ScheduleDraft>(ctx),
    optionsStep<ScheduleDraft>(TEMPLATE_OPTIONS, 'create the schedule'),
  ];
}

async function ask(ctx: SpoolContext): Promise<CreateScheduleParams | undefined> {
  const client = ctx.connection.client();
  const [{ queues }, { schedules }] = await Promise.all([client.call('queues.list'), client.call('schedules.list')]);
  const draft: ScheduleDraft = {};
  if (!(await runSteps(TITLE, scheduleSteps(ctx, queues, new Set(schedules.map((s) => s.name))), draft))) return undefined;
  const job = draftJob(draft, vscode.workspace.workspaceFolders?.[0]?.uri.fsPath, TEMPLATE_OPTIONS);
  // Every step checked its answer as it was typed; this only fails if a step was skipped.
  if (!job.ok) throw new Error(job.message);
  await rememberDraft(ctx, draft);
  return {
    name: draft.name ?? '',
    cron: draft.cron ?? '',
    timezone: draft.timezone ?? DEFAULT_TIMEZONE,
    queue: draft.queue ?? 'default',
    job: { kind: job.value.kind, payload: job.value.payload, ...job.value.options },
  };
}

/** The note after creating: the schedule in words and its next runs, in its zone and locally. */
function createdText(schedule: Schedule, nextRuns: number[]): string {
  const seconds = schedule.cron.trim().split(/\s+/).length === 6;
  return `Spool: schedule ${schedule.name} created: ${describeCron(schedule.cron)}, into ${schedule.queue}. Next runs: ${fireTimesText(nextRuns, schedule.timezone, localTimeZone(), seconds)}.`;
}

export const createSchedule = command('spool.schedules.create', async (ctx, arg) => {
  const params = isCreateParams(arg) ? arg : await ask(ctx);
  if (!params) return undefined;
  assertMayEnqueue(params.job.kind);
  const result = await ctx.connection.client().call('schedules.create', params);
  void vscode.window.showInformationMessage(createdText(result.schedule, result.nextRuns));
  ctx.schedules.refresher.now();
  return result.schedule;
});
