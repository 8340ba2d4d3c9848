/** The `spool` command tree: global options and every command, registered in one place. */
import { Command } from 'commander';
import { VERSION } from '../shared/version';
import { registerBackup } from './commands/backup';
import { registerBulk } from './commands/bulk';
import { registerCompleteNames } from './commands/complete-names';
import { registerCompletion } from './commands/completion';
import { registerDaemon } from './commands/daemon';
import { registerEnqueue } from './commands/enqueue';
import { registerJobs } from './commands/jobs';
import { registerQueues } from './commands/queues';
import { registerRestore } from './commands/restore';
import { registerRpc } from './commands/rpc';
import { registerSchedules } from './commands/schedules';
import { registerStatus } from './commands/status';
import { registerWork } from './commands/work';

export function buildProgram(): Command {
  const program = new Command('spool')
    .description('Spool: a local job queue. Talks to the Spool daemon over its Unix socket.')
    .version(VERSION, '-V, --version')
    .option('--socket <path>', 'the daemon socket (default $SPOOL_SOCKET, $XDG_RUNTIME_DIR/spool/spool.sock, ~/.spool/spool.sock)')
    .option('--no-color', 'no colours (also: NO_COLOR=1; colours are only used on a terminal)')
    .showHelpAfterError('(add --help for usage)')
    // Usage errors read like every other error: `spool: <reason>`.
    .configureOutput({ outputError: (text, write) => write(text.replace(/^error: /, 'spool: ')) })
    .configureHelp({ showGlobalOptions: true })
    .addHelpText(
      'after',
      `
Examples:
  spool daemon --detach                              start the daemon in the background
  spool enqueue default --shell "npm test" --wait    run a command as a job and wait for it
  spool jobs --state dead                            list dead jobs
  spool logs -f <id>                                 follow a job's output
  spool retry --queue default --state dead           retry every dead job of a queue
  spool schedule add nightly --cron "0 3 * * *" --queue default --shell "make backup"
  spool work images --exec "./resize.sh"             run a command per job
  spool rpc queues.list                              call any daemon method

Every command that prints data takes --json. Run spool <command> --help for its options.`,
    );
  registerDaemon(program);
  registerEnqueue(program);
  registerJobs(program);
  registerBulk(program);
  registerQueues(program);
  registerSchedules(program);
  registerStatus(program);
  registerBackup(program);
  registerRestore(program);
  registerWork(program);
  registerRpc(program);
  registerCompletion(program);
  registerCompleteNames(program);
  return program;
}
