/**
 * spoold, the Spool daemon (dist/daemon.js): its command line (program.ts, from the flag table in
 * shared/client/daemonFlags.ts) wired to the work in lifecycle/control.ts.
 *
 *   node dist/daemon.js [flags] [--detach]
 *   node dist/daemon.js stop | status
 *   node dist/daemon.js check-database FILE
 */
import { CLI_FOREGROUND_FLAG, type DaemonProgramMessage } from '../shared/client/daemonProcess';
import { daemonStatus, runDaemon, startDetached, stopDaemon } from './lifecycle/control';
import { spooldProgram } from './program';
import { databaseFileProblem } from './storage/sqlite/checkFile';
import { errorMessage } from '../shared/protocol/errors';

const program = spooldProgram({
  async start(options, how) {
    if (how.cliForeground) followParent();
    if (how.detach) {
      const started = await startDetached(options);
      const what = started.started ? 'Started the Spool daemon' : 'A Spool daemon is already running';
      process.stdout.write(`${what} (pid ${started.pid}) on ${started.socketPath}; database: ${started.dbPath}; log: ${started.logPath ?? 'its standard error'}\n`);
      return;
    }
    await runDaemon(options);
  },
  async stop(socketPath, timeoutMs) {
    const stopped = await stopDaemon(socketPath, timeoutMs);
    process.stdout.write(stopped ? `Stopped the Spool daemon (pid ${stopped.pid}).\n` : `No Spool daemon is running on ${socketPath}.\n`);
  },
  async status(socketPath) {
    const status = await daemonStatus(socketPath);
    if (!status) {
      process.stderr.write(`No Spool daemon is running on ${socketPath}. Start one with \`spool daemon --detach\`.\n`);
      process.exitCode = 1;
      return;
    }
    process.stdout.write(JSON.stringify(status, null, 2) + '\n');
  },
  async checkDatabase(file) {
    const problem = databaseFileProblem(file);
    process.stdout.write(problem === null ? 'ok\n' : `${problem}\n`);
    if (problem !== null) process.exitCode = 1;
  },
});

/**
 * Run by `spool daemon` in the foreground, the daemon is that command's child: if the command is
 * killed outright (SIGKILL cannot be passed on), its IPC channel closes, and the daemon stops
 * gracefully rather than run on where nobody sees its log. The channel must not keep it alive.
 */
function followParent(): void {
  if (!process.channel) return;
  process.channel.unref();
  process.once('disconnect', () => process.kill(process.pid, 'SIGTERM'));
}

program.parseAsync(process.argv).then(
  () => process.exit(process.exitCode ?? 0),
  (error: unknown) => {
    const message = errorMessage(error);
    // Under `spool daemon`, the command reports the failure as its own (`spool: …`).
    if (process.send && process.connected && process.argv.includes(CLI_FOREGROUND_FLAG)) {
      const report: DaemonProgramMessage = { type: 'failed', message };
      process.send(report, () => process.exit(1));
      return;
    }
    process.stderr.write(`spoold: ${message}\n`);
    process.exit(1);
  },
);
