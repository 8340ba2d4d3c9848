/**
 * `spool daemon [start|stop|status]`: run the daemon program (dist/daemon.js) in the foreground
 * (the default: a child of this process, logging to its stderr), start it in the background
 * (`--detach`), stop it, or show its status. The CLI never loads the daemon's code: it starts
 * the daemon program and talks to it over its socket.
 */
import type { Command } from 'commander';
import * as os from 'node:os';
import * as path from 'node:path';
import { ConnectionLostError } from '../../shared/client';
import * as control from '../../shared/client/daemonProcess';
import { processExists } from '../../shared/client/processes';
import { DEFAULT_BACKUP_KEEP, MIN_BACKUP_EVERY_MS, defaultDaemonOptions, storeUrlProblem, type DaemonOptions } from '../../shared/daemon-options';
import { action, arg } from '../action';
import type { CliContext } from '../context';
import { CliError } from '../errors';
import { renderFields } from '../format/table';
import { formatDuration } from '../format/time';
import { parseDuration, parseKillAfter } from '../parse/duration';
import { parseInteger } from '../parse/values';

type DaemonCliOptions = {
  detach?: boolean;
  db?: string;
  store?: string;
  storePoll?: boolean;
  durable?: boolean;
  logFormat?: string;
  grace?: string;
  maxExecutors?: string;
  killAfter?: string;
  name?: string;
  metrics?: string;
  metricsAllowRemote?: boolean;
  listen?: string;
  tlsCert?: string;
  tlsKey?: string;
  timeout?: string;
  json?: boolean;
  backupEvery?: string;
  backupDir?: string;
  backupKeep?: string;
};

export function registerDaemon(program: Command): void {
  program
    .command('daemon')
    .description('Run the Spool daemon (foreground by default), start it in the background, stop it, or show its status')
    .argument('[action]', 'start (default), stop or status')
    .option('-d, --detach', 'start: run in the background and return once it answers')
    .option('--db <path>', 'start: the SQLite database (default $SPOOL_DB, $XDG_DATA_HOME/spool/spool.db)')
    .option('--store <url>', 'start: keep the queue in PostgreSQL instead of SQLite: postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE (default $SPOOL_STORE); several daemons may share it')
    .option('--store-poll', 'start: with --store, poll for other daemons\' work instead of LISTEN/NOTIFY (for PgBouncer in transaction mode)')
    .option('--durable', 'start: every commit survives power loss (synchronous=FULL), at a cost in speed')
    .option('--log-format <format>', 'start: text (default) or json log lines on stderr')
    .option('--grace <duration>', 'start: on shutdown, how long running jobs may take to finish (default 10s)')
    .option('--max-executors <n>', 'start: shell/http jobs running at once (default: the number of CPUs)')
    .option('--kill-after <duration>', 'start: SIGKILL a cancelled, timed-out or stopped shell job this long after SIGTERM (default 5s)')
    .option('--name <name>', "start: the daemon's name on its metrics (default: the host's name)")
    .option('--metrics <host:port>', 'start: serve Prometheus metrics at http://HOST:PORT/metrics (loopback only unless --metrics-allow-remote)')
    .option('--metrics-allow-remote', 'start: allow --metrics on a non-loopback address (plain HTTP: keep it behind a proxy)')
    .option('--listen <host:port>', 'start: also listen on TCP, over TLS only, for clients with a token (spool token create)')
    .option('--tls-cert <file>', 'start: the TLS certificate (PEM) for --listen (default: made on first start in the data folder)')
    .option('--tls-key <file>', 'start: the private key (PEM) of --tls-cert')
    .option('--backup-every <duration>', 'start: take a backup of the database this often (e.g. 6h), into --backup-dir')
    .option('--backup-dir <folder>', 'start: where scheduled backups go (timestamped, each with a .sha256)')
    .option('--backup-keep <n>', `start: scheduled backups to keep, the newest (default ${DEFAULT_BACKUP_KEEP})`)
    .option('--timeout <duration>', 'stop: how long to wait for it to finish (default 30s)')
    .option('--json', 'status: print the status as JSON')
    .addHelpText(
      'after',
      `
Examples:
  spool daemon                 # in the foreground; Ctrl-C stops it gracefully
  spool daemon --detach        # in the background; prints its pid, socket and log
  spool daemon --metrics 127.0.0.1:9464   # Prometheus metrics at http://127.0.0.1:9464/metrics
  spool daemon status
  spool daemon stop
  spool --socket /tmp/test.sock daemon --detach --db /tmp/test.db
  spool daemon --detach --store postgres://spool@db.internal:5432/spool   # the queue in PostgreSQL`,
    )
    .action(action<DaemonCliOptions>((ctx, args, o) => daemon(ctx, arg(args, 0) || 'start', o)));
}

async function daemon(ctx: CliContext, what: string, o: DaemonCliOptions): Promise<number> {
  if (what === 'status') {
    const status = await control.daemonStatus(ctx.socketPath);
    if (!status) throw new CliError(`No Spool daemon at ${ctx.socketPath}. Start one with \`spool daemon --detach\`.`);
    if (o.json) ctx.printJson(status);
    else {
      const c = status.counts;
      ctx.print(
        renderFields(
          [
            ['daemon', `running, pid ${status.pid}, up ${formatDuration(status.uptimeMs)}`],
            ['version', `${status.version} (protocol ${status.protocolVersion})`],
            ['socket', status.socketPath],
            ...(status.store === undefined || status.store.kind === 'sqlite' ? ([['database', status.dbPath]] as [string, string][]) : ([['store', status.store.location]] as [string, string][])),
            ['log', status.logPath ?? 'its standard error (it was not started with --detach)'],
            ...(status.storeUnavailable === undefined ? [] : ([['store status', `UNAVAILABLE: ${status.storeUnavailable}`]] as [string, string][])),
            ['jobs', `${c.running} running, ${c.queued} queued, ${c.retrying} retrying, ${c.dead} dead, ${c.completed} completed`],
            ['executors', `${status.executors.running} of ${status.executors.cap} busy`],
            ...(status.listen === undefined ? [] : ([['tls', `${status.listen}, certificate ${status.tlsFingerprint ?? '?'}`]] as [string, string][])),
          ],
          ctx.colors.dim,
        ),
      );
    }
    return 0;
  }
  if (what === 'stop') {
    const timeoutMs = o.timeout !== undefined ? parseDuration(o.timeout, '--timeout') : 30_000;
    // Running built-in jobs get the daemon's grace period: say why nothing happens for a while.
    const waiting = setTimeout(() => ctx.note('Waiting for the daemon to stop; running jobs get its grace period (spool daemon --grace, 10s by default) to finish…'), 1000);
    const stopped = await stop(ctx.socketPath, timeoutMs).finally(() => clearTimeout(waiting));
    ctx.print(stopped ? `Stopped the Spool daemon (pid ${stopped.pid}).` : `No Spool daemon is running at ${ctx.socketPath}.`);
    return 0;
  }
  if (what !== 'start') throw new CliError(`Unknown daemon action "${what}": use start, stop or status.`);
  const options = daemonOptions(ctx, o);
  if (o.detach) {
    const started = await control.startDetached(options);
    if (started.started) ctx.print(`Started the Spool daemon (pid ${started.pid}).`);
    else {
      ctx.print(`A Spool daemon is already running (pid ${started.pid}).`);
      const given = START_OPTIONS.filter(([key]) => o[key] !== undefined).map(([, flag]) => flag);
      if (given.length > 0) {
        ctx.note(`It keeps its own settings: ${given.join(', ')} ${given.length === 1 ? 'applies' : 'apply'} only to a daemon this command starts. Stop it first (spool daemon stop) to start one with ${given.length === 1 ? 'it' : 'them'}.`);
      }
    }
    ctx.print(`  socket:   ${started.socketPath}\n  ${options.store === null ? `database: ${started.dbPath}` : `store:    ${started.dbPath}`}\n  log:      ${started.logPath ?? 'its standard error (it was not started with --detach)'}`);
    return 0;
  }
  const ended = await control.runDaemonProgram(options);
  if (ended.failure !== null) throw new CliError(ended.failure);
  // A daemon ended by a signal it did not handle: exit as a shell reports it (128 + the signal's number).
  if (ended.signal !== null) return 128 + (os.constants.signals[ended.signal] ?? 0);
  return ended.code ?? 1;
}

/** The options that only a start of a new daemon uses, with their flags. */
const START_OPTIONS: readonly (readonly [keyof DaemonCliOptions, string])[] = [
  ['db', '--db'],
  ['store', '--store'],
  ['storePoll', '--store-poll'],
  ['durable', '--durable'],
  ['logFormat', '--log-format'],
  ['grace', '--grace'],
  ['maxExecutors', '--max-executors'],
  ['killAfter', '--kill-after'],
  ['name', '--name'],
  ['metrics', '--metrics'],
  ['metricsAllowRemote', '--metrics-allow-remote'],
  ['listen', '--listen'],
  ['tlsCert', '--tls-cert'],
  ['tlsKey', '--tls-key'],
  ['backupEvery', '--backup-every'],
  ['backupDir', '--backup-dir'],
  ['backupKeep', '--backup-keep'],
];

/**
 * `stopDaemon`, tolerating a daemon that closes the connection before its answer to
 * `daemon.shutdown` arrives: it is shutting down, so wait until it no longer answers.
 */
async function stop(socketPath: string, timeoutMs: number): Promise<{ pid: number } | null> {
  const status = await control.daemonStatus(socketPath);
  if (!status) return null;
  try {
    return await control.stopDaemon(socketPath, timeoutMs);
  } catch (error) {
    if (!(error instanceof ConnectionLostError)) throw error;
  }
  const deadline = Date.now() + timeoutMs;
  while ((await control.daemonStatus(socketPath, 1000)) !== null || processExists(status.pid)) {
    if (Date.now() > deadline) throw new CliError(`The daemon (pid ${status.pid}) is still running ${formatDuration(timeoutMs)} after it was asked to stop. Wait, or end it with \`kill ${status.pid}\`.`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { pid: status.pid };
}

function daemonOptions(ctx: CliContext, o: DaemonCliOptions): DaemonOptions {
  const options = defaultDaemonOptions();
  options.socketPath = ctx.socketPath;
  if (o.db) options.dbPath = o.db;
  if (o.store !== undefined) options.store = o.store;
  if (options.store !== null) {
    const problem = storeUrlProblem(options.store);
    if (problem !== null) throw new CliError(`${o.store !== undefined ? '--store' : 'SPOOL_STORE'}: ${problem}.`);
    if (o.durable || o.backupEvery !== undefined) {
      throw new CliError(`${o.durable ? '--durable' : '--backup-every'} is for the SQLite store; on PostgreSQL, durability is the server's synchronous_commit and backups are pg_dump's.`);
    }
  }
  if (o.storePoll) {
    if (options.store === null) throw new CliError('--store-poll works with the PostgreSQL store only: give --store postgres://… (or SPOOL_STORE) too.');
    options.storePoll = true;
  }
  if (o.durable) options.durable = true;
  if (o.logFormat !== undefined) {
    if (o.logFormat !== 'text' && o.logFormat !== 'json') throw new CliError(`Unknown --log-format "${o.logFormat}": use text or json.`);
    options.logFormat = o.logFormat;
  }
  if (o.grace !== undefined) options.graceMs = parseDuration(o.grace, '--grace');
  if (o.maxExecutors !== undefined) options.maxExecutors = parseInteger(o.maxExecutors, '--max-executors', 1, 1024);
  if (o.killAfter !== undefined) options.killGraceMs = parseKillAfter(o.killAfter);
  if (o.name !== undefined) {
    if (o.name.trim() === '') throw new CliError('--name must not be empty: it names the daemon on its metrics.');
    options.name = o.name;
  }
  // The daemon checks the address (HOST:PORT, loopback unless allowed) and says what is wrong.
  if (o.metrics !== undefined) options.metrics = o.metrics;
  if (o.metricsAllowRemote) options.metricsAllowRemote = true;
  // Checked (HOST:PORT, both or neither of cert and key) by the daemon program, which says which flag is at fault.
  if (o.listen !== undefined) options.listen = o.listen;
  if (o.tlsCert !== undefined) options.tlsCert = path.resolve(o.tlsCert);
  if (o.tlsKey !== undefined) options.tlsKey = path.resolve(o.tlsKey);
  if (o.backupEvery !== undefined || o.backupDir !== undefined || o.backupKeep !== undefined) {
    if (o.backupEvery === undefined || o.backupDir === undefined) {
      throw new CliError('Scheduled backups need both --backup-every (how often, e.g. 6h) and --backup-dir (the folder).');
    }
    const everyMs = parseDuration(o.backupEvery, '--backup-every');
    if (everyMs < MIN_BACKUP_EVERY_MS) throw new CliError(`--backup-every must be at least ${MIN_BACKUP_EVERY_MS / 1000}s (got ${o.backupEvery}).`);
    const keep = o.backupKeep === undefined ? DEFAULT_BACKUP_KEEP : parseInteger(o.backupKeep, '--backup-keep', 1, 10_000);
    options.backups = { everyMs, dir: path.resolve(o.backupDir), keep };
  }
  return options;
}
