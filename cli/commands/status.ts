/** `spool workers` and `spool stats [--watch]`: who works, and how the queues stand. */
import type { Command } from 'commander';
import type { Stats } from '../../shared/protocol';
import { action } from '../action';
import { CliError } from '../errors';
import { statsView, workersTable } from '../format/records';
import { historyTable } from '../format/history';
import { parseDuration } from '../parse/duration';

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
    .description('Job counts per queue and state, and jobs finished in the last minute and hour; with --history, per minute or hour over time')
    .option('-w, --watch', 'keep the summary on screen, refreshed as the daemon reports changes (Ctrl-C ends)')
    .option('--json', 'print the stats as JSON (with --watch: one JSON object per line per change)')
    .option('--history', 'per queue and minute (or hour): jobs enqueued, started, completed, failed, dead, cancelled, wait and run times, backlog')
    .option('--queue <name>', 'with --history: only this queue')
    .option('--since <duration>', 'with --history: how far back, e.g. 30m, 6h, 7d (default 1h)')
    .option('--step <step>', 'with --history: minute or hour (default minute)')
    .addHelpText('after', '\nExamples:\n  spool stats\n  spool stats --watch\n  spool stats --watch --json | jq -c .totals\n  spool stats --history --queue emails --since 30m\n  spool stats --history --since 7d --step hour')
    .action(
      action<{ watch?: boolean; json?: boolean; history?: boolean; queue?: string; since?: string; step?: string }>(async (ctx, _args, o) => {
        if (!o.history && (o.queue !== undefined || o.since !== undefined || o.step !== undefined)) throw new CliError('--queue, --since and --step go with --history.');
        if (o.history) {
          if (o.watch) throw new CliError('--history does not go with --watch.');
          const step = o.step ?? 'minute';
          if (step !== 'minute' && step !== 'hour') throw new CliError(`--step is minute or hour, not "${step}".`);
          const since = o.since === undefined ? 3_600_000 : parseDuration(o.since, '--since');
          const to = Date.now();
          const result = await (await ctx.client()).call('stats.history', { ...(o.queue === undefined ? {} : { queue: o.queue }), from: to - since, to: to + (step === 'minute' ? 60_000 : 3_600_000), step });
          if (o.json) return ctx.printJson(result);
          if (result.points.length === 0) return ctx.note(`No history${o.queue === undefined ? '' : ` of queue ${o.queue}`} in the last ${o.since ?? '1h'}: nothing happened then, or the daemon runs with --no-history.`);
          ctx.print(historyTable(result.points, ctx.colors).trimEnd());
          return;
        }
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
