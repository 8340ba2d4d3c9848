/**
 * Run Workflow: asks each of the workflow's parameters (its default filled in, its type checked)
 * and starts a run (`workflows.run`): of the daemon's workflow, or of a workspace file's workflow
 * the daemon does not hold, sent as the file declares it. The run's graph opens. Arguments: a
 * workflow of the Workflows view or a workflow's name (none: a pick), then optionally the
 * parameters' values, which are then not asked. Returns the run's id.
 */
import * as vscode from 'vscode';
import type { WorkflowRunParams } from '../../../shared/protocol/workflows';
import type { SpoolContext } from '../../context';
import { command } from '../command';
import { runName, type WorkflowEntry } from '../../views/workflows/model';
import { askWorkflowParams } from '../../workflowRun';
import { isWorkflowNode } from '../../views/workflows/provider';

async function entryOf(ctx: SpoolContext, arg: unknown): Promise<WorkflowEntry | undefined> {
  if (isWorkflowNode(arg)) return arg.entry;
  const entries = await ctx.workflows.list();
  if (typeof arg === 'string' && arg !== '') {
    const entry = entries.find((e) => e.name === arg);
    if (!entry) throw new Error(`No workflow is named ${arg}: the daemon holds none, and no spool.jsonc of the workspace declares one.`);
    return entry;
  }
  if (entries.length === 0) throw new Error('There are no workflows: declare one under "workflows" in spool.jsonc (see docs/workflows.md).');
  const pick = await vscode.window.showQuickPick(
    entries.map((e) => ({ label: e.name, description: e.source === 'file' ? 'spool.jsonc, not applied' : undefined, detail: e.description, entry: e })),
    { title: 'Spool: Run Workflow', placeHolder: 'Choose a workflow' },
  );
  return pick?.entry;
}


export const runWorkflow = command('spool.workflows.run', async (ctx, arg, given) => {
  const entry = await entryOf(ctx, arg);
  if (!entry) return undefined;
  const params = typeof given === 'object' && given !== null ? Object.fromEntries(Object.entries(given).map(([k, v]) => [k, String(v)])) : await askWorkflowParams(entry.name, entry.params);
  if (!params) return undefined;
  const request: WorkflowRunParams = { workflow: entry.name, params };
  if (entry.source === 'file' && entry.definition) request.definition = entry.definition;
  const started = await ctx.connection.client().call('workflows.run', request);
  ctx.workflows.refresher.now();
  void vscode.window.setStatusBarMessage(`Spool: started ${runName(started.run)}, ${started.jobs.length} job${started.jobs.length === 1 ? '' : 's'}.`, 5000);
  await ctx.runPages.open(started.run.id);
  return started.run.id;
});
