/**
 * The editor's half of a workflow's "Run workflow" lens (the language server starts the run):
 * before it, one input box per parameter of the workflow, with its default filled in and its
 * type checked as it is typed; after it, a note naming the run with "Show Run", which opens the
 * run's graph (`spool.workflows.showRun`), or the page of its first job where that command is
 * not there.
 */
import * as vscode from 'vscode';
import type { WorkflowParam } from '../shared/protocol/projects';
import type { WorkflowRunStarted } from '../shared/protocol/workflows';
import { isRecord } from '../shared/domain/records';
import { paramProblem } from './views/workflows/model';
import { readSettings } from './settings';

const SHOW_RUN = 'Show Run';
/** The command of the run's graph view. */
const SHOW_RUN_COMMAND = 'spool.workflows.showRun';

/** The values of the workflow's parameters, asked one by one; undefined when the person cancels. */
export async function askWorkflowParams(workflow: string, params: Record<string, WorkflowParam>): Promise<Record<string, string> | undefined> {
  const values: Record<string, string> = {};
  const names = Object.keys(params);
  for (const [i, name] of names.entries()) {
    const param = params[name];
    if (param === undefined) continue;
    const value = await vscode.window.showInputBox({
      title: `Run workflow ${workflow} (${i + 1}/${names.length})`,
      prompt: `${name}${param.description !== undefined ? `: ${param.description}` : ''} (${param.type}${param.default === undefined ? ', required' : ''})`,
      value: param.default ?? '',
      ignoreFocusOut: true,
      validateInput: (text) => paramProblem(name, param, text),
      placeHolder: param.default === undefined ? undefined : `empty: the default, ${param.default}`,
    });
    if (value === undefined) return undefined;
    // Left empty: the default.
    if (value !== '' || param.default === undefined) values[name] = value;
  }
  return values;
}


/** The parameters as spool.workflowParams answers them. */
export function paramsOf(answer: unknown): Record<string, WorkflowParam> | null {
  return isRecord(answer) && isRecord(answer['params']) ? (answer['params'] as Record<string, WorkflowParam>) : null;
}

export function isRunStarted(value: unknown): value is WorkflowRunStarted {
  return isRecord(value) && isRecord(value['run']) && typeof value['run']['id'] === 'string' && Array.isArray(value['jobs']);
}

/** Says the run started, with Show Run. */
export async function announceRun(workflow: string, started: WorkflowRunStarted): Promise<void> {
  const n = started.jobs.length;
  const text = `Spool: started a run of workflow ${workflow} (${n} job${n === 1 ? '' : 's'}).`;
  if (readSettings().notifications === 'none') {
    vscode.window.setStatusBarMessage(text, 5000);
    return;
  }
  if ((await vscode.window.showInformationMessage(text, SHOW_RUN)) !== SHOW_RUN) return;
  if ((await vscode.commands.getCommands(true)).includes(SHOW_RUN_COMMAND)) {
    await vscode.commands.executeCommand(SHOW_RUN_COMMAND, started.run.id);
    return;
  }
  const first = started.jobs[0];
  if (first !== undefined) await vscode.commands.executeCommand('spool.jobs.openDetails', first.id);
}
