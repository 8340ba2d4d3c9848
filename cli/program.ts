/** The `spool` command tree: global options and every command, registered in one place. */
import { Command } from 'commander';
import { VERSION } from '../shared/protocol/version';
import { registerBackup } from './commands/backup';
import { registerBulk } from './commands/bulk';
import { registerCompleteNames } from './commands/completeNames';
import { registerCompletion } from './commands/completion';
import { registerApply } from './commands/apply';
import { registerDaemon } from './commands/daemon';
import { registerEnqueue } from './commands/enqueue';
import { registerJobs } from './commands/jobs';
import { registerPauseAll } from './commands/pauseAll';
import { registerPlan } from './commands/plan';
import { registerLsp } from './commands/lsp';
import { registerMcp } from './commands/mcp';
import { registerQueues } from './commands/queues';
import { registerRestore } from './commands/restore';
import { registerRpc } from './commands/rpc';
import { registerRun } from './commands/run';
import { registerSchedules } from './commands/schedules';
import { registerStatus } from './commands/status';
import { registerWork } from './commands/work';
import { registerWorkflow } from './commands/workflow';
import { registerWorkflows } from './commands/workflows';
import { registerToken } from './commands/token';
import { registerTop } from './commands/top';

export function buildProgram(): Command {
  const program = new Command('spool')
    .description('Spool: a local job queue. Talks to the Spool daemon over its Unix socket.')
    .version(VERSION, '-V, --version')
    .option('--socket <path>', 'the daemon socket (default $SPOOL_SOCKET, $XDG_RUNTIME_DIR/spool/spool.sock, ~/.spool/spool.sock)')
    .option('--no-color', 'no colours (also: NO_COLOR=1; colours are only used on a terminal)')
    .option('--endpoint <tls://host:port>', 'a daemon over the network, over TLS (default $SPOOL_ENDPOINT); needs a token and --tls-fingerprint or --tls-ca')
    .option('--token-file <file>', 'the access token for --endpoint (default $SPOOL_TOKEN_FILE, or the token in $SPOOL_TOKEN)')
    .option('--tls-fingerprint <sha256:hex>', "the daemon certificate's fingerprint, as `spool daemon status` shows it (default $SPOOL_TLS_FINGERPRINT)")
    .option('--tls-ca <file>', "a CA certificate (PEM) that signed the daemon's certificate (default $SPOOL_TLS_CA)")
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
  spool plan                                         what spool apply would change, from spool.jsonc
  spool apply                                        make the daemon match spool.jsonc
  spool run release --param version=1.2 --wait      run a workflow of spool.jsonc, step by step
  spool rpc queues.list                              call any daemon method

Every command that prints data takes --json. Run spool <command> --help for its options.`,
    );
  registerDaemon(program);
  registerEnqueue(program);
  registerJobs(program);
  registerBulk(program);
  registerQueues(program);
  registerPauseAll(program);
  registerSchedules(program);
  registerPlan(program);
  registerApply(program);
  registerRun(program);
  registerWorkflows(program);
  registerWorkflow(program);
  registerStatus(program);
  registerTop(program);
  registerBackup(program);
  registerRestore(program);
  registerWork(program);
  registerToken(program);
  registerRpc(program);
  registerLsp(program);
  registerMcp(program);
  registerCompletion(program);
  registerCompleteNames(program);
  return program;
}
