/**
 * spoold, the Spool daemon (dist/daemon.js):
 *
 *   node dist/daemon.js [--socket P] [--db P | --store postgres://… [--store-poll]] [--durable] [--log-format text|json]
 *                       [--grace-ms N] [--max-executors N] [--kill-after-ms N] [--detach]
 *                       [--name NAME] [--metrics HOST:PORT [--metrics-allow-remote]]
 *                       [--listen HOST:PORT [--tls-cert F --tls-key F]]
 *                       [--backup-every 6h --backup-dir D [--backup-keep N]]
 *   node dist/daemon.js stop | status
 *
 * Only argument parsing and wiring live here; see lifecycle/control.ts for the work.
 */
import { Command, InvalidArgumentError, Option } from 'commander';
import { VERSION } from '../shared/version';
import * as path from 'node:path';
import { parseDuration } from '../shared/domain/durations';
import { DEFAULT_BACKUP_KEEP, MAX_KILL_GRACE_MS, MIN_BACKUP_EVERY_MS, defaultDaemonOptions, storeUrlProblem, type DaemonOptions, type ScheduledBackupOptions } from './config';
import { CLI_FOREGROUND_FLAG, type DaemonProgramMessage } from '../shared/client/daemonProcess';
import { parseMetricsAddress } from './metrics/address';
import { daemonStatus, runDaemon, startDetached, stopDaemon } from './lifecycle/control';

function integer(min: number, max = Number.MAX_SAFE_INTEGER) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min || n > max) {
      throw new InvalidArgumentError(max === Number.MAX_SAFE_INTEGER ? `expected an integer ≥ ${min}.` : `expected an integer from ${min} to ${max}.`);
    }
    return n;
  };
}

function nonEmpty(value: string): string {
  if (value.trim() === '') throw new InvalidArgumentError('expected a non-empty name.');
  return value;
}

function validMetricsAddress(value: string): string {
  try {
    parseMetricsAddress(value);
  } catch (error) {
    throw new InvalidArgumentError(error instanceof Error ? error.message : String(error));
  }
  return value;
}

function storeUrl(value: string): string {
  const problem = storeUrlProblem(value);
  if (problem !== null) throw new InvalidArgumentError(`${problem}.`);
  return value;
}

interface CliOptions {
  socket?: string;
  db?: string;
  store?: string;
  storePoll?: boolean;
  durable?: boolean;
  logFormat?: 'text' | 'json';
  graceMs?: number;
  maxExecutors?: number;
  killAfterMs?: number;
  scheduleGraceMs?: number;
  groupCommit?: boolean;
  name?: string;
  metrics?: string;
  metricsAllowRemote?: boolean;
  listen?: string;
  tlsCert?: string;
  tlsKey?: string;
  detach?: boolean;
  cliForeground?: boolean;
  backupEvery?: number;
  backupDir?: string;
  backupKeep?: number;
}

function duration(min: number) {
  return (value: string): number => {
    const result = parseDuration(value);
    if (!result.ok) throw new InvalidArgumentError(`${result.message}.`);
    if (result.value < min) throw new InvalidArgumentError(`expected at least ${min / 1000}s.`);
    return result.value;
  };
}

/** --backup-every and --backup-dir go together; --backup-keep needs them. */
function backupOptions(cli: CliOptions): ScheduledBackupOptions | null {
  if (cli.backupEvery === undefined && cli.backupDir === undefined) {
    if (cli.backupKeep !== undefined) throw new InvalidArgumentError('--backup-keep needs --backup-every and --backup-dir.');
    return null;
  }
  if (cli.backupEvery === undefined || cli.backupDir === undefined) {
    throw new InvalidArgumentError('Scheduled backups need both --backup-every (how often, e.g. 6h) and --backup-dir (the folder).');
  }
  return { everyMs: cli.backupEvery, dir: path.resolve(cli.backupDir), keep: cli.backupKeep ?? DEFAULT_BACKUP_KEEP };
}

function toDaemonOptions(cli: CliOptions): DaemonOptions {
  const defaults = defaultDaemonOptions();
  const store = cli.store ?? defaults.store;
  if (store !== null && cli.store === undefined) storeUrl(store);
  if (cli.storePoll && store === null) throw new InvalidArgumentError('--store-poll works with the PostgreSQL store only: give --store postgres://… (or SPOOL_STORE) too.');
  if (store !== null && (cli.durable || cli.backupEvery !== undefined)) {
    throw new InvalidArgumentError(`${cli.durable ? '--durable' : '--backup-every'} is for the SQLite store; on PostgreSQL, durability is the server's synchronous_commit and backups are pg_dump's.`);
  }
  return {
    socketPath: cli.socket ?? defaults.socketPath,
    dbPath: cli.db ?? defaults.dbPath,
    store,
    storePoll: cli.storePoll ?? false,
    durable: cli.durable ?? defaults.durable,
    logFormat: cli.logFormat ?? defaults.logFormat,
    graceMs: cli.graceMs ?? defaults.graceMs,
    maxExecutors: cli.maxExecutors ?? defaults.maxExecutors,
    killGraceMs: cli.killAfterMs ?? defaults.killGraceMs,
    scheduleGraceMs: cli.scheduleGraceMs ?? defaults.scheduleGraceMs,
    groupCommit: cli.groupCommit ?? defaults.groupCommit,
    name: cli.name ?? defaults.name,
    metrics: cli.metrics ?? defaults.metrics,
    metricsAllowRemote: cli.metricsAllowRemote ?? defaults.metricsAllowRemote,
    listen: cli.listen ?? defaults.listen,
    tlsCert: cli.tlsCert ?? defaults.tlsCert,
    tlsKey: cli.tlsKey ?? defaults.tlsKey,
    backups: backupOptions(cli),
  };
}

const program = new Command('spoold')
  .description('The Spool daemon: a local job queue over a Unix socket.')
  .version(VERSION)
  // `spoold stop --socket P`: options after a subcommand belong to the subcommand.
  .enablePositionalOptions()
  .option('--socket <path>', 'Unix socket to listen on (default: $SPOOL_SOCKET, $XDG_RUNTIME_DIR/spool/spool.sock, ~/.spool/spool.sock)')
  .option('--db <path>', 'SQLite database file (default: $SPOOL_DB, $XDG_DATA_HOME/spool/spool.db)')
  .option('--store <url>', 'keep the queue in PostgreSQL instead of the SQLite file: postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE (default: $SPOOL_STORE); several daemons may share one database', storeUrl)
  .option('--store-poll', 'with --store: poll for other daemons\' work instead of LISTEN/NOTIFY (for PgBouncer in transaction mode)')
  .option('--durable', 'synchronous=FULL: every commit survives power loss, at a cost in throughput')
  .addOption(new Option('--log-format <format>', 'log lines on stderr').choices(['text', 'json']))
  .option('--grace-ms <ms>', 'on shutdown, how long running built-in jobs may take to finish', integer(0))
  .option('--max-executors <n>', 'built-in (shell, http) jobs running at once (default: CPU count)', integer(1))
  .option('--kill-after-ms <ms>', 'a cancelled, timed-out or stopped shell job gets SIGKILL this long after SIGTERM (default: 5000)', integer(0, MAX_KILL_GRACE_MS))
  .option('--schedule-grace-ms <ms>', 'a schedule tick later than this counts as missed', integer(0))
  .option('--no-group-commit', 'commit each enqueue in its own transaction')
  .option('--name <name>', "the daemon's name on its metrics (default: the host's name)", nonEmpty)
  .option('--metrics <host:port>', 'serve Prometheus metrics at http://HOST:PORT/metrics (loopback only, unless --metrics-allow-remote)', validMetricsAddress)
  .option('--metrics-allow-remote', 'allow --metrics on an address other than loopback (plain HTTP: keep it behind a proxy)')
  .option('--listen <host:port>', 'also listen on TCP, over TLS only, for clients with a token (spool token create)')
  .option('--tls-cert <file>', 'the TLS certificate (PEM) for --listen (default: made on first start in the data folder)')
  .option('--tls-key <file>', 'the TLS private key (PEM) for --tls-cert')
  .option('--backup-every <duration>', 'take a backup of the database this often (e.g. 6h), into --backup-dir', duration(MIN_BACKUP_EVERY_MS))
  .option('--backup-dir <folder>', 'where scheduled backups go (timestamped names, with a .sha256 each)')
  .option('--backup-keep <n>', `scheduled backups to keep, the newest (default ${DEFAULT_BACKUP_KEEP})`, integer(1))
  .option('--detach', 'start in the background and return once the daemon answers')
  .addOption(new Option(CLI_FOREGROUND_FLAG, 'started by `spool daemon` in the foreground, over an IPC channel').hideHelp())
  .action(async (cli: CliOptions) => {
    if (cli.cliForeground) followParent();
    const options = toDaemonOptions(cli);
    if (cli.detach) {
      const started = await startDetached(options);
      const what = started.started ? 'Started the Spool daemon' : 'A Spool daemon is already running';
      process.stdout.write(`${what} (pid ${started.pid}) on ${started.socketPath}; database: ${started.dbPath}; log: ${started.logPath ?? 'its standard error'}\n`);
      return;
    }
    await runDaemon(options);
  });

program
  .command('stop')
  .description('ask the daemon to shut down gracefully, and wait until it has')
  .option('--socket <path>', 'the daemon socket')
  .option('--timeout-ms <ms>', 'how long to wait', integer(1), 30_000)
  .action(async (cli: { socket?: string; timeoutMs: number }) => {
    const socketPath = cli.socket ?? defaultDaemonOptions().socketPath;
    const stopped = await stopDaemon(socketPath, cli.timeoutMs);
    process.stdout.write(stopped ? `Stopped the Spool daemon (pid ${stopped.pid}).\n` : `No Spool daemon is running on ${socketPath}.\n`);
  });

program
  .command('status')
  .description('print the running daemon\'s status as JSON (exit code 1 when none answers)')
  .option('--socket <path>', 'the daemon socket')
  .action(async (cli: { socket?: string }) => {
    const socketPath = cli.socket ?? defaultDaemonOptions().socketPath;
    const status = await daemonStatus(socketPath);
    if (!status) {
      process.stderr.write(`No Spool daemon is running on ${socketPath}. Start one with \`spool daemon --detach\`.\n`);
      process.exitCode = 1;
      return;
    }
    process.stdout.write(JSON.stringify(status, null, 2) + '\n');
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
    const message = error instanceof Error ? error.message : String(error);
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
