/** `spool apply`: make the daemon match the jobs file, in one transaction, after a yes. */
import type { Command } from 'commander';
import { hasChanges, planChanges } from '../../shared/jobsfile';
import { planHash } from '../../shared/jobsfile';
import { action } from '../action';
import { confirm } from '../confirm';
import { CliError } from '../errors';
import { readJobsFile } from '../jobsfile/read';
import { planJson, renderPlan } from '../jobsfile/render';

export function registerApply(program: Command): void {
  program
    .command('apply')
    .description('Apply spool.jsonc to the daemon: create, update and delete its queues, templates and schedules, all or nothing')
    .option('-f, --file <path>', 'the jobs file (default: spool.jsonc, else spool.json, in the current folder)')
    .option('-y, --yes', 'apply without asking (needed when there is no terminal)')
    .option('--force', 'delete queues the file no longer declares even when they hold jobs (their jobs too)')
    .option('--json', 'print the applied plan {changes, applied, hash, unmanaged, drift} as JSON')
    .addHelpText(
      'after',
      `
The plan is shown first (as spool plan prints it), then applied in one daemon call, one
transaction: if the daemon's objects changed since the plan was shown, nothing is applied.
Objects made by hand are never touched.

Examples:
  spool apply
  spool apply --yes --file deploy/spool.jsonc
  spool apply --yes --force     also delete dropped queues that still hold jobs`,
    )
    .action(
      action<{ file?: string; yes?: boolean; force?: boolean; json?: boolean }>(async (ctx, _args, o) => {
        const file = readJobsFile(o.file, (line) => ctx.note(line));
        const client = await ctx.client();
        const project = file.declaration.project;
        const plan = planChanges(file.declaration, await client.call('project.state', { project }));
        if (!o.json) ctx.note(renderPlan(plan, ctx.colors));
        if (plan.conflicts.length > 0) throw new CliError(`Nothing was applied: ${plan.conflicts.length} conflict${plan.conflicts.length === 1 ? '' : 's'} (above). Rename the objects in the file, or remove the existing ones.`);
        const forced = plan.changes.filter((c) => c.needsForce).map((c) => c.name);
        if (forced.length > 0 && !o.force) throw new CliError(`Nothing was applied: queue${forced.length === 1 ? '' : 's'} ${forced.join(', ')} still hold${forced.length === 1 ? 's' : ''} jobs. Pass --force to delete them with their jobs.`);
        if (!hasChanges(plan)) {
          if (o.json) ctx.printJson({ ...planJson(plan), applied: false });
          else ctx.note('Nothing to apply: the daemon matches the file.');
          // Applied anyway when only the last-applied records differ: cheap, and it keeps drift honest.
          await client.call('project.apply', { project, file: file.declaration, expected: planHash(plan) });
          return 0;
        }
        await confirm(ctx, { what: `This applies the changes above to the daemon at ${ctx.socketPath}.`, question: 'Apply them?', yes: o.yes === true });
        const result = await client.call('project.apply', { project, file: file.declaration, expected: planHash(plan), ...(o.force ? { force: true } : {}) });
        if (o.json) return ctx.printJson(result);
        const n = result.changes.filter((c) => c.action !== 'unchanged').length;
        ctx.note(ctx.colors.green(`Applied ${n} change${n === 1 ? '' : 's'} to project "${project}".`));
        return 0;
      }),
    );
}
