/**
 * `spool mcp`: the Model Context Protocol server (dist/mcp.js) over stdin and stdout, for a coding
 * agent: tools to read queues, jobs and workflow runs, plan the jobs file, and with --allow-write
 * enqueue, run workflows, retry and cancel. It reaches the daemon this command would (--socket, --endpoint).
 */
import type { Command } from 'commander';
import { action } from '../action';
import { runBundle } from '../bundle';

export function registerMcp(program: Command): void {
  program
    .command('mcp')
    .description('Serve the Model Context Protocol over stdin and stdout, so a coding agent can read and run jobs')
    .option('--allow-write', 'let the agent enqueue, run templates and workflows, retry and cancel (without it, only reading and planning)')
    .addHelpText(
      'after',
      `
Tools: list_queues, list_jobs, get_job, list_schedules, list_templates, list_workflows,
get_workflow_run, plan_jobs_file; and with --allow-write: enqueue_shell, run_template,
run_workflow, retry_job, cancel_job. See docs/mcp.md for an agent's configuration.

Examples:
  spool mcp                                  read-only, on the local daemon
  spool mcp --allow-write                    also enqueue, retry and cancel`,
    )
    .action(action<{ allowWrite?: boolean }>((ctx, _args, o) => runBundle(ctx, 'mcp.js', o.allowWrite ? ['--allow-write'] : [])));
}
