/**
 * `spool top`: a full-screen view of the queues, running jobs and recent failures (dist/top.js,
 * a bundle of its own so that the CLI bundle stays free of the terminal library). It reaches the
 * daemon this command would (--socket, --endpoint).
 */
import type { Command } from 'commander';
import { action } from '../action';
import { runBundle } from '../bundle';

export function registerTop(program: Command): void {
  program
    .command('top')
    .description('A full-screen view of the queues, running jobs and recent failures, live, with keys to pause, retry and cancel')
    .addHelpText(
      'after',
      `
Three panes: the queues (waiting, running, delayed, retrying and dead jobs, jobs done and dead per
second, and a sparkline of jobs ended per second), the running jobs (elapsed time, progress), and
the recent failures (why each job died). The daemon keeps no history of rates: spool top samples
the counts once a second while it runs and computes the rates and sparklines from those samples,
so they start empty. Everything else follows the daemon's change notifications.

Keys:
  ↑ ↓, k j    move the selection           Tab, 1 2 3   switch pane
  p           pause or resume a queue      r            retry the selected job
  c           cancel the selected job      Enter, l     its output below, following
  L           its output in $PAGER (less)  Esc          close the output or the help
  ?           help                         q, Ctrl-C    quit

When the daemon goes away, spool top says so and keeps trying to reconnect.

Examples:
  spool top
  spool --endpoint tls://build-box:7420 top`,
    )
    .action(action((ctx) => runBundle(ctx, 'top.js', [])));
}
