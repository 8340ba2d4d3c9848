/** Refresh the Workflows view: the daemon's workflows and runs, and the workspace's jobs files. */
import { command } from '../command';

export const refreshWorkflows = command('spool.workflows.refresh', (ctx) => {
  ctx.workflows.refresher.now();
});
