/**
 * Open Workflow Run: the run's graph (views/workflowRun), one page per run; opening it again
 * reveals it. Argument: the run's id (what the jobs file's code lens passes), a run of the
 * Workflows view, or none (a pick). Returns the id of the run shown.
 */
import { command } from '../command';
import { runTarget } from './runTarget';

export const showRun = command('spool.workflows.showRun', async (ctx, arg) => {
  const id = await runTarget(ctx, arg);
  if (id === undefined) return undefined;
  await ctx.runPages.open(id);
  return id;
});
