/**
 * The run a workflow-run command applies to: a run id (the graph page's buttons, the CLI's code
 * lens, a test), a run of the Workflows view, or — from the palette — a pick of the recent runs.
 */
import * as vscode from 'vscode';
import type { SpoolContext } from '../../context';
import { isWorkflowRunNode } from '../../views/workflows/provider';
import { runDescription, runName } from '../../views/workflows/model';

export async function runTarget(ctx: SpoolContext, arg: unknown): Promise<string | undefined> {
  if (typeof arg === 'string' && arg !== '') return arg;
  if (isWorkflowRunNode(arg)) return arg.run.id;
  const { runs } = await ctx.connection.client().call('workflows.runs', { limit: 50 });
  if (runs.length === 0) throw new Error('No workflow has run yet. Run one from the Workflows view.');
  const now = Date.now();
  const pick = await vscode.window.showQuickPick(
    runs.map((r) => ({ label: runName(r), description: runDescription(r, now), id: r.id })),
    { title: 'Spool: Workflow Runs', placeHolder: 'Choose a run' },
  );
  return pick?.id;
}
