/**
 * Create Schedule: name → cron expression → queue → kind and command/URL/payload. The daemon
 * checks the cron expression; its answer (with the next fire times) is shown. Called with a
 * `CreateScheduleParams` object it creates that directly.
 */
import * as vscode from 'vscode';
import { cronProblem, describeCron } from '../../../shared/domain/cron';
import { NAME_PATTERN, type CreateScheduleParams } from '../../../shared/protocol';
import { assertMayEnqueue } from '../../trust';
import { command } from '../command';

function isCreateParams(value: unknown): value is CreateScheduleParams {
  return typeof value === 'object' && value !== null && 'name' in value && 'cron' in value && 'queue' in value && 'job' in value;
}

const TITLE = 'Spool: Create Schedule';
const nameRule = (v: string): string | null => (NAME_PATTERN.test(v.trim()) ? null : 'Use 1–128 letters, digits, ".", "_", ":" or "-", starting with a letter or digit.');

async function ask(): Promise<CreateScheduleParams | undefined> {
  const name = await vscode.window.showInputBox({ title: TITLE, prompt: 'Schedule name', placeHolder: 'nightly-build', validateInput: nameRule });
  if (!name) return undefined;
  const cron = await vscode.window.showInputBox({
    title: TITLE,
    prompt: 'Cron expression (5 fields, or 6 with seconds first), in UTC',
    placeHolder: '*/5 * * * *',
    // The daemon's own check, as it is typed: the field at fault and what it takes, or the
    // expression in words once it is valid.
    validateInput: (v) => {
      const problem = cronProblem({ cron: v });
      return problem === null ? { message: describeCron(v), severity: vscode.InputBoxValidationSeverity.Info } : problem.message;
    },
  });
  if (!cron) return undefined;
  const queue = await vscode.window.showInputBox({ title: TITLE, prompt: 'Queue the jobs go to', value: 'default', validateInput: nameRule });
  if (!queue) return undefined;
  const kind = await vscode.window.showQuickPick(['shell', 'http'], { title: TITLE, placeHolder: 'Kind of job' });
  if (!kind) return undefined;
  assertMayEnqueue(kind);
  const value = await vscode.window.showInputBox({
    title: TITLE,
    prompt: kind === 'shell' ? 'Shell command' : 'URL to call',
    validateInput: (v) => (v.trim() === '' ? 'Required.' : kind === 'http' && !URL.canParse(v.trim()) ? 'Not a URL.' : null),
  });
  if (!value) return undefined;
  const payload = kind === 'shell' ? { command: value.trim() } : { url: value.trim() };
  return { name: name.trim(), cron: cron.trim(), queue: queue.trim(), job: { kind, payload } };
}

export const createSchedule = command('spool.schedules.create', async (ctx, arg) => {
  const params = isCreateParams(arg) ? arg : await ask();
  if (!params) return undefined;
  assertMayEnqueue(params.job.kind);
  const result = await ctx.connection.client().call('schedules.create', params);
  const next = result.nextRuns.map((t) => new Date(t).toISOString().replace('T', ' ').slice(0, 19)).join(', ');
  void vscode.window.showInformationMessage(`Schedule ${result.schedule.name} created (${describeCron(result.schedule.cron)}). Next runs (UTC): ${next}.`);
  ctx.schedules.refresher.now();
  return result.schedule;
});
