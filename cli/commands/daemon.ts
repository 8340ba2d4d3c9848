/**
 * `spool daemon [start|stop|status|install-service]`: run the daemon program (dist/daemon.js) in
 * the foreground (the default: a child of this process, logging to its stderr), start it in the
 * background (`--detach`), stop it, show its status, or write a systemd user service that runs
 * it (daemonService.ts). The CLI never loads the daemon's code: it starts the daemon program and
 * talks to it over its socket.
 */
import type { Command } from 'commander';
import * as os from 'node:os';
import { ConnectionLostError } from '../../shared/client/client';
import * as control from '../../shared/client/daemonProcess';
import { processExists } from '../../shared/client/processes';
import { DAEMON_FLAGS, DETACH_FLAG, DaemonFlagError, STOP_TIMEOUT_FLAG, daemonOptionsFromFlags, flagHelp, flagUsage, givenDaemonFlags, parseStopTimeout } from '../../shared/client/daemonFlags';
import type { DaemonOptions } from '../../shared/client/daemonOptions';
import type { Env } from '../../shared/client/paths';
import { action, arg } from '../action';
import type { CliContext } from '../context';
import { CLOCK_SKEW_WARN_MS, describeClockSkew } from '../../shared/domain/clock';
import { CliError } from '../errors';
import { renderFields } from '../format/table';
import { formatDuration } from '../format/time';
import { enableSteps, serviceUnit, writeServiceUnit, type ServiceFlags } from './daemonService';

/** What commander collects: one property per flag of the table (`killAfter`, `backupKeep`…), and the command's own. */
type DaemonCliOptions = Record<string, unknown> &
  ServiceFlags & {
    detach?: boolean;
    timeout?: string;
    json?: boolean;
  };

export function registerDaemon(program: Command): void {
  const command = program
    .command('daemon')
    .description('Run the Spool daemon (foreground by default), start it in the background, stop it, show its status, or install it as a systemd user service')
    .argument('[action]', 'start (default), stop, status or install-service')
    .option(`-d, ${flagUsage(DETACH_FLAG)}`, `start: ${flagHelp(DETACH_FLAG)}`);
  // The daemon's own flags, from the table spoold's parser is built from; `spool --socket` is the socket.
  for (const flag of DAEMON_FLAGS) if (!flag.cliGlobal) command.option(flagUsage(flag), `start: ${flagHelp(flag)}`);
  command
    .option(flagUsage(STOP_TIMEOUT_FLAG), `stop: ${flagHelp(STOP_TIMEOUT_FLAG)}`)
    .option('--json', 'status: print the status as JSON')
    .option('--unit <name>', 'install-service: the service\'s name (default: spool, in ~/.config/systemd/user/spool.service)')
    .option('--force', 'install-service: replace a unit of that name that differs')
    .option('--print', 'install-service: print the unit instead of writing it')
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
  spool daemon --detach --store postgres://spool@db.internal:5432/spool   # the queue in PostgreSQL
  spool daemon install-service --metrics 127.0.0.1:9464   # a systemd user service with these flags
  spool daemon install-service --print                    # show the unit, write nothing`,
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
            ...(status.allPaused === true ? ([['queues', 'ALL PAUSED: no job starts on any queue until spool resume --all']] as [string, string][]) : []),
            ['jobs', `${c.running} running, ${c.queued} queued, ${c.retrying} retrying, ${c.held ?? 0} held, ${c.dead} dead, ${c.completed} completed`],
            ['executors', `${status.executors.running} of ${status.executors.cap} busy`],
            ...(status.listen === undefined ? [] : ([['tls', `${status.listen}, certificate ${status.tlsFingerprint ?? '?'}`]] as [string, string][])),
            ...(status.clockSkewMs === undefined ? [] : ([['clock', clockLine(status.clockSkewMs)]] as [string, string][])),
            ...(status.containment === undefined
              ? []
              : ([['processes', status.containment.kind === 'cgroup' ? `a cgroup per shell job, under ${status.containment.path}` : `shell jobs held by process group and SPOOL_JOB_ID only (${status.containment.reason})`]] as [string, string][])),
            ...(status.metrics === undefined ? [] : ([['metrics', status.metrics]] as [string, string][])),
          ],
          ctx.colors.dim,
        ),
      );
    }
    return 0;
  }
  if (what === 'stop') {
    const timeoutMs = flagValue(() => parseStopTimeout(o.timeout));
    // Running built-in jobs get the daemon's grace period: say why nothing happens for a while.
    const waiting = setTimeout(() => ctx.note('Waiting for the daemon to stop; running jobs get its grace period (spool daemon --grace, 10s by default) to finish…'), 1000);
    const stopped = await stop(ctx.socketPath, timeoutMs).finally(() => clearTimeout(waiting));
    ctx.print(stopped ? `Stopped the Spool daemon (pid ${stopped.pid}).` : `No Spool daemon is running at ${ctx.socketPath}.`);
    return 0;
  }
  if (what === 'install-service') return installService(ctx, o);
  if (what !== 'start') throw new CliError(`Unknown daemon action "${what}": use start, stop, status or install-service.`);
  const options = daemonStartOptions(o, ctx.socketPath);
  if (o.detach) {
    const started = await control.startDetached(options);
    if (started.started) ctx.print(`Started the Spool daemon (pid ${started.pid}).`);
    else {
      ctx.print(`A Spool daemon is already running (pid ${started.pid}).`);
      const given = givenDaemonFlags(o);
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

/** Writes (or prints) the systemd user unit, and says how to enable it. */
async function installService(ctx: CliContext, o: DaemonCliOptions): Promise<number> {
  const unit = serviceUnit(daemonStartOptions(o, ctx.socketPath), o);
  if (o.print) {
    ctx.print(unit.text.replace(/\n$/, ''));
    if (unit.secretFile !== null) ctx.note(`Nothing was written: without --print, the store URL (it holds a password) goes to ${unit.secretFile.path}, which only you may read.`);
    return 0;
  }
  const written = writeServiceUnit(unit, o.force === true);
  ctx.print(`${written === 'unchanged' ? 'Unchanged' : written === 'replaced' ? 'Replaced' : 'Wrote'} ${unit.file}, a service for the daemon on ${unit.socketPath}.`);
  if (unit.secretFile !== null) ctx.print(`The store URL, with its password, is in ${unit.secretFile.path} (only you may read it).`);
  ctx.print(enableSteps(unit.name));
  const running = await control.daemonStatus(unit.socketPath, 1000);
  if (running) ctx.note(`A daemon is running on that socket now (pid ${running.pid}); the service cannot start beside it. Stop it first: spool daemon stop`);
  return 0;
}

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

/**
 * The settings of the daemon `spool daemon` starts: the flags of the table, read as spoold reads
 * them, on the socket `spool --socket` names.
 */
export function daemonStartOptions(values: Readonly<Record<string, unknown>>, socketPath: string, env: Env = process.env): DaemonOptions {
  const options = flagValue(() => daemonOptionsFromFlags(values, env));
  return { ...options, socketPath };
}

/** `read()`, with a flag refused said as the CLI's one-line error. */
function flagValue<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof DaemonFlagError) throw new CliError(error.message);
    throw error;
  }
}

/** The status line for the daemon's clock against the database server's. */
function clockLine(skewMs: number): string {
  const how = describeClockSkew(skewMs);
  if (Math.abs(skewMs) <= CLOCK_SKEW_WARN_MS) return `${how} the database server's`;
  return `WARNING: ${how} the database server's; leases and due times use each daemon's clock, so keep clocks in step with NTP (chrony or systemd-timesyncd)`;
}
