/** `spool pause --all` / `spool resume --all`: every queue at once, for every daemon of the store (one queue: spool queue <name> pause). */
import type { Command } from 'commander';
import { action } from '../action';
import { CliError } from '../errors';

export function registerPauseAll(program: Command): void {
  for (const verb of ['pause', 'resume'] as const) {
    program
      .command(verb)
      .description(verb === 'pause' ? 'With --all: pause every queue; no job starts until spool resume --all, running ones finish' : 'With --all: end spool pause --all; queues paused on their own stay paused')
      .option('--all', 'every queue, for every daemon of the store')
      .option('--json', 'print {allPaused} as JSON')
      .addHelpText('after', `\nOne queue: spool queue <name> ${verb}.\n\nExamples:\n  spool ${verb} --all`)
      .action(
        action<{ all?: boolean; json?: boolean }>(async (ctx, _args, o) => {
          if (o.all !== true) throw new CliError(`Say what to ${verb}: spool ${verb} --all for every queue, or spool queue <name> ${verb} for one.`);
          const result = await (await ctx.client()).call(verb === 'pause' ? 'daemon.pauseAll' : 'daemon.resumeAll');
          if (o.json) ctx.printJson(result);
          else ctx.print(verb === 'pause' ? 'Paused every queue: no job starts until spool resume --all; running jobs finish.' : 'Resumed: queues hand out jobs again (those paused on their own stay paused).');
        }),
      );
  }
}
