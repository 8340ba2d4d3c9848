/** `spool plan`: what `spool apply` would change on the daemon, from the jobs file. */
import type { Command } from 'commander';
import { hasChanges, planChanges } from '../../shared/jobsfile';
import { action } from '../action';
import { readJobsFile } from '../jobsfile/read';
import { planJson, renderPlan } from '../jobsfile/render';

/** The exit status of `--exit-code` when the plan has changes (1 stays for errors). */
export const CHANGES_EXIT_CODE = 2;

export function registerPlan(program: Command): void {
  program
    .command('plan')
    .description('Show what `spool apply` would create, update or delete on the daemon, from spool.jsonc')
    .option('-f, --file <path>', 'the jobs file (default: spool.jsonc, else spool.json, in the current folder)')
    .option('--json', 'print {changes: [{action, type, name}, …], unmanaged, drift, conflicts} as JSON')
    .option('--exit-code', `exit ${CHANGES_EXIT_CODE} when there are changes, 0 when none (for CI)`)
    .option('-v, --verbose', 'list every unmanaged object, not only how many of each type')
    .addHelpText(
      'after',
      `
Objects no project owns (made by hand) are counted as unmanaged (--verbose lists them) and never touched; drift is an
owned object changed by hand since the last apply. Invalid files print every problem as
file:line:column and exit 1.

Examples:
  spool plan
  spool plan --file deploy/spool.jsonc
  spool plan --json | jq '.changes[] | select(.action != "unchanged")'
  spool plan --exit-code || echo "spool.jsonc and the daemon differ"`,
    )
    .action(
      action<{ file?: string; json?: boolean; exitCode?: boolean; verbose?: boolean }>(async (ctx, _args, o) => {
        const file = readJobsFile(o.file, (line) => ctx.note(line));
        const client = await ctx.client();
        const state = await client.call('project.state', { project: file.declaration.project });
        const plan = planChanges(file.declaration, state);
        if (o.json) ctx.printJson(planJson(plan));
        else ctx.print(renderPlan(plan, ctx.colors, true, o.verbose === true));
        return o.exitCode && hasChanges(plan) ? CHANGES_EXIT_CODE : 0;
      }),
    );
}
