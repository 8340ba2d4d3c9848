/**
 * spoold's command line (dist/daemon.js), built from the flag table in shared/client/daemonFlags.ts,
 * which `spool daemon` is built from too:
 *
 *   spoold [--socket P] [--db P | --store postgres://… [--store-poll]] [--durable] [--log-format text|json]
 *          [--grace 10s] [--max-executors N] [--kill-after 5s] [--schedule-grace 5s] [--no-group-commit]
 *          [--name NAME] [--metrics HOST:PORT [--metrics-allow-remote]]
 *          [--listen HOST:PORT [--tls-cert F --tls-key F]]
 *          [--backup-every 6h --backup-dir D [--backup-keep N]] [--detach]
 *   spoold stop [--socket P] [--timeout 30s]
 *   spoold status [--socket P]
 *   spoold check-database FILE
 *
 * What each command does is passed in (main.ts passes the real work), so that a test can read a
 * command line exactly as spoold reads it without starting a daemon.
 */
import { Command, Option } from 'commander';
import { CLI_FOREGROUND_FLAG } from '../shared/client/daemonProcess';
import type { Env } from '../shared/client/paths';
import { VERSION } from '../shared/protocol/version';
import { DAEMON_FLAGS, DETACH_FLAG, SOCKET_FLAG, STOP_TIMEOUT_FLAG, daemonOptionsFromFlags, flagHelp, flagUsage, parseStopTimeout, socketPathFromFlags, type DaemonOptions } from './config';

/** What spoold's commands do, given what their command lines say. */
export interface SpooldActions {
  /** Run a daemon: in this process, or in the background with --detach; `cliForeground` when `spool daemon` runs it. */
  start(options: DaemonOptions, how: { detach: boolean; cliForeground: boolean }): Promise<void>;
  stop(socketPath: string, timeoutMs: number): Promise<void>;
  status(socketPath: string): Promise<void>;
  /** Says whether a SQLite file is a whole Spool database (`spool restore` asks before replacing one). */
  checkDatabase(file: string): Promise<void>;
}

/** `stop` and `status` take the table's --socket, with its default, to ask the daemon there. */
const SOCKET_HELP = flagHelp({ ...SOCKET_FLAG, help: 'the socket of the daemon to ask' });

/** spoold's commands, doing `actions`; defaults (and SPOOL_STORE) come from `env`. */
export function spooldProgram(actions: SpooldActions, env: Env = process.env): Command {
  const program = new Command('spoold')
    .description('The Spool daemon: a local job queue over a Unix socket.')
    .version(VERSION)
    // `spoold stop --socket P`: options after a subcommand belong to the subcommand.
    .enablePositionalOptions()
    // Usage errors read like every other error: `spoold: <reason>`.
    .configureOutput({ outputError: (text, write) => write(text.replace(/^error: /, 'spoold: ')) });
  for (const flag of DAEMON_FLAGS) program.option(flagUsage(flag), flagHelp(flag));
  program
    .option(flagUsage(DETACH_FLAG), flagHelp(DETACH_FLAG))
    .addOption(new Option(CLI_FOREGROUND_FLAG, 'started by `spool daemon` in the foreground, over an IPC channel').hideHelp())
    .action(async (values: Record<string, unknown>) => {
      const options = daemonOptionsFromFlags(values, env);
      await actions.start(options, { detach: values['detach'] === true, cliForeground: values['cliForeground'] === true });
    });

  program
    .command('stop')
    .description('ask the daemon to shut down gracefully, and wait until it has')
    .option(flagUsage(SOCKET_FLAG), SOCKET_HELP)
    .option(flagUsage(STOP_TIMEOUT_FLAG), flagHelp(STOP_TIMEOUT_FLAG))
    .action(async (values: { socket?: string; timeout?: string }) => {
      const timeoutMs = parseStopTimeout(values.timeout);
      await actions.stop(socketPathFromFlags(values, env), timeoutMs);
    });

  program
    .command('status')
    .description("print the running daemon's status as JSON (exit code 1 when none answers)")
    .option(flagUsage(SOCKET_FLAG), SOCKET_HELP)
    .action(async (values: { socket?: string }) => actions.status(socketPathFromFlags(values, env)));

  program
    .command('check-database')
    .description("check that a SQLite file is a whole Spool database (SQLite's integrity check, then its schema); prints why not and exits 1 otherwise")
    .argument('<file>', 'the file to check')
    .action(async (file: string) => actions.checkDatabase(file));
  return program;
}
