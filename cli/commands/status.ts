/** `spool workers` and `spool stats [--watch]`: who works, and how the queues stand. */
import type { Command } from 'commander';
import type { Stats } from '../../shared/protocol';
import { action } from '../action';
import { CliError } from '../errors';
import { statsView, workersTable } from '../format/records';

export function registerStatus(program: Command): void {
  program
    .command('workers')
    .description('List workers: the daemon\'s own executors and remote workers, with their last heartbeat')
    .option('--json', 'print {workers} as JSON')
    .addHelpText('after', '\nExamples:\n  spool workers\n  spool workers --json')
    .action(
      action<{ json?: boolean }>(async (ctx, _args, o) => {
        const result = await (await ctx.client()).call('workers.list');
        if (o.json) return ctx.printJson(result);
        if (result.workers.length === 0) return ctx.note('No workers. Start one: spool work <queue> --exec "<command>"');
        ctx.print(workersTable(result.workers, ctx.colors));
      }),
    );

  program
    .command('stats')
    .description('Job counts per queue and state, and jobs finished in the last minute and hour')
    .option('-w, --watch', 'keep the summary on screen, refreshed as the daemon reports changes (Ctrl-C ends)')
    .option('--json', 'print the stats as JSON (with --watch: one JSON object per line per change)')
    .addHelpText('after', '\nExamples:\n  spool stats\n  spool stats --watch\n  spool stats --watch --json | jq -c .totals')
    .action(
      action<{ watch?: boolean; json?: boolean }>(async (ctx, _args, o) => {
        const client = await ctx.client();
        const render = (stats: Stats): void => {
          if (o.json) {
            ctx.stdout.write(JSON.stringify(stats) + (o.watch ? '\n' : ''));
            if (!o.watch) ctx.stdout.write('\n');
            return;
          }
          // On a terminal, redraw in place; in a pipe, print each summary after the last.
          if (o.watch && ctx.stdout.isTTY) ctx.stdout.write('\x1b[H\x1b[2J');
          ctx.print(statsView(stats, ctx.colors));
          if (o.watch) ctx.print(ctx.colors.dim(`updated ${new Date(stats.at).toLocaleTimeString()}; Ctrl-C to stop`));
        };
        if (!o.watch) return render(await client.call('stats.get'));
        // Subscribe first, then read: a change between the two is not missed.
        const ended = new Promise<void>((resolve, reject) => {
          client.onClose(() => reject(new CliError(`Lost the Spool daemon at ${client.socketPath}; stats are no longer live.`)));
          process.once('SIGINT', () => resolve());
          process.once('SIGTERM', () => resolve());
        });
        await client.subscribe({ topics: ['stats'] }, { 'stats.changed': (event) => render(event.stats) });
        render(await client.call('stats.get'));
        await ended;
      }),
    );
}
