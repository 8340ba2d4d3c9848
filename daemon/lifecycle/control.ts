/**
 * Running a daemon in this process: what `spoold` (dist/daemon.js) does. Starting, stopping and
 * asking a daemon from the outside is in shared/client/daemonProcess.ts, which the CLI uses too
 * without loading the daemon; it is re-exported here for the daemon's entry point.
 *
 * - `runDaemon` runs one in this process until SIGTERM/SIGINT or `daemon.shutdown`.
 */
import type { DaemonOptions } from '../config';
import { Daemon } from './daemon';
import { createLogger } from './logger';

export {
  DAEMON_NODE_FLAGS,
  daemonScriptPath,
  daemonStatus,
  startDetached,
  stopDaemon,
  type DetachedDaemon,
} from '../../shared/client/daemonProcess';

/** Runs a daemon in this process; resolves once it has shut down. Rejects if it cannot start. */
export async function runDaemon(options: DaemonOptions): Promise<void> {
  const logger = createLogger(options.logFormat);
  // Signal handlers go in first: a client can connect (and a supervisor can signal) as soon as
  // the socket listens, before start-up has finished.
  let daemon: Daemon | null = null;
  let pendingSignal: NodeJS.Signals | null = null;
  const onSignal = (signal: NodeJS.Signals): void => {
    logger.info('Received a signal', { signal });
    if (daemon) void daemon.shutdown(signal);
    else pendingSignal = signal;
  };
  // The daemon must outlive a bug in one request or one job: log it and keep serving.
  const onUncaught = (error: unknown): void => logger.error('Uncaught error; the daemon keeps running', { error });
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  process.on('uncaughtException', onUncaught);
  process.on('unhandledRejection', onUncaught);
  try {
    daemon = await Daemon.start(options, logger);
    if (pendingSignal !== null) void daemon.shutdown(pendingSignal);
    await daemon.stopped;
  } finally {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
    process.off('uncaughtException', onUncaught);
    process.off('unhandledRejection', onUncaught);
  }
}

