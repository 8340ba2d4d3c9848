/**
 * The daemon's flag table (shared/client/daemonFlags.ts) and what is derived from it: spoold's parser
 * (daemon/program.ts) and `spool daemon` (cli/commands/daemon.ts) declare the same flags and read
 * them alike, accepting the same arguments and refusing the same ones with the same message;
 * optionsToArgs, which `spool daemon` and the extension's launcher start spoold with, reads back
 * through spoold's parser as the options it was given, every field; and docs/cli.md shows the
 * table as it is. Commander parses here exactly as in the programs, with the actions replaced so
 * that nothing is started.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { Command, type Option } from 'commander';
import { daemonStartOptions } from '../../cli/commands/daemon';
import { buildProgram } from '../../cli/program';
import { spooldProgram } from '../../daemon/program';
import { launchArgs } from '../../extension/daemon/launcher';
import { DAEMON_FLAGS, DETACH_FLAG, STOP_TIMEOUT_FLAG, defaultDaemonOptions, flagUsage, optionsToArgs, parseStopTimeout, type CommandFlag, type DaemonFlag } from '../../shared/client/daemonFlags';
import { DEFAULT_BACKUP_KEEP, DEFAULT_GRACE_MS, DEFAULT_KILL_GRACE_MS, DEFAULT_SCHEDULE_GRACE_MS, optionsToEnv, type DaemonOptions } from '../../shared/client/daemonOptions';
import type { Env } from '../../shared/client/paths';
import { errorMessage } from '../../shared/protocol/errors';

const ROOT = path.resolve(__dirname, '..', '..');
const SOCKET = '/tmp/spool-flags-test/spool.sock';
/** An environment of its own, so that the defaults do not depend on the machine's. */
const ENV: Env = { HOME: '/home/flags', XDG_RUNTIME_DIR: '/run/user/1000' };

const silent = { writeOut: () => {}, writeErr: () => {}, outputError: () => {} };

/**
 * `program` and its subcommands throw instead of exiting, and print nothing (a subcommand copies
 * these settings when it is made, so each is set on its own).
 */
function quiet(program: Command): Command {
  for (const command of [program, ...program.commands]) command.exitOverride().configureOutput(silent);
  return program;
}

/** What a parser made of a command line: the options, or the message it refused it with. */
type Outcome = { options: DaemonOptions } | { refused: string };

function messageOf(error: unknown): string {
  return errorMessage(error);
}

/** Starts spoold's parser on `args` (after `dist/daemon.js`), with a start that only records what it was given. */
async function spoold(args: readonly string[], env: Env = ENV): Promise<Outcome & { detach?: boolean }> {
  let started: { options: DaemonOptions; detach: boolean } | undefined;
  const program = spooldProgram(
    {
      start: async (options, how) => void (started = { options, detach: how.detach }),
      stop: async () => {},
      status: async () => {},
      checkDatabase: async () => {},
    },
    env,
  );
  quiet(program);
  try {
    await program.parseAsync([...args], { from: 'user' });
  } catch (error) {
    return { refused: messageOf(error) };
  }
  assert.ok(started, `spoold ${args.join(' ')} started nothing`);
  return started;
}

/** The `spool daemon` command of the `spool` program, its action replaced by one that records the options commander collected. */
function spoolDaemonCommand(): { program: Command; daemon: Command; collected: () => Record<string, unknown> } {
  const program = buildProgram();
  const daemon = program.commands.find((command) => command.name() === 'daemon');
  assert.ok(daemon, 'spool has a daemon command');
  let values: Record<string, unknown> | undefined;
  daemon.action((...args: unknown[]) => {
    const command = args[args.length - 1];
    assert.ok(command instanceof Command);
    values = command.opts();
  });
  quiet(program);
  return {
    program,
    daemon,
    collected: () => {
      assert.ok(values, 'spool daemon ran');
      return values;
    },
  };
}

/** Reads `spool daemon ARGS` (spool's --socket being SOCKET) into the options it starts a daemon with. */
async function spoolDaemon(args: readonly string[], env: Env = ENV): Promise<Outcome> {
  const { program, collected } = spoolDaemonCommand();
  try {
    await program.parseAsync(['daemon', ...args], { from: 'user' });
    return { options: daemonStartOptions(collected(), SOCKET, env) };
  } catch (error) {
    return { refused: messageOf(error) };
  }
}

/** The long flags and their arguments a command declares (`--grace <duration>`), without help's. */
function declared(command: Command): string[] {
  return command.options
    .filter((option: Option) => !option.hidden)
    .map((option: Option) => option.flags.replace(/^-\w, /, ''))
    .filter((flags) => !/^--(version|help)\b/.test(flags))
    .sort();
}

const usages = (flags: readonly (DaemonFlag | CommandFlag)[]): string[] => flags.map(flagUsage);

test('spoold and spool daemon declare every flag of the table, with the same argument, and no other', () => {
  const program = spooldProgram({ start: async () => {}, stop: async () => {}, status: async () => {}, checkDatabase: async () => {} });
  assert.deepEqual(declared(program), [...usages(DAEMON_FLAGS), flagUsage(DETACH_FLAG)].sort());
  const stop = program.commands.find((command) => command.name() === 'stop');
  assert.ok(stop);
  assert.deepEqual(declared(stop), ['--socket <path>', flagUsage(STOP_TIMEOUT_FLAG)].sort());

  const { daemon } = spoolDaemonCommand();
  // The socket is spool's own --socket, which `spool daemon` takes before or after `daemon`.
  const own = DAEMON_FLAGS.filter((flag) => !flag.cliGlobal);
  // Besides the table: status --json, and install-service's own (daemonService.ts).
  assert.deepEqual(declared(daemon), [...usages(own), flagUsage(DETACH_FLAG), flagUsage(STOP_TIMEOUT_FLAG), '--json', '--unit <name>', '--force', '--print'].sort());
  for (const flag of DAEMON_FLAGS.filter((f) => f.cliGlobal)) {
    assert.ok(
      buildProgram().options.some((option: Option) => option.flags === flagUsage(flag)),
      `spool takes ${flag.flag} itself`,
    );
  }
});

/** Command lines both programs accept; together they give every flag of the table. */
const ACCEPTED: readonly { args: string[]; env?: Env }[] = [
  { args: [] },
  {
    args: [
      '--db', 'relative/spool.db', '--durable', '--log-format', 'json', '--grace', '1m30s', '--max-executors', '1024',
      '--kill-after', '1h', '--schedule-grace', '0', '--no-group-commit', '--no-history', '--history-minute-days', '2', '--history-hour-days', '36500', '--name', 'build-box', '--metrics', '127.0.0.1:9464',
      '--metrics-allow-remote', '--metrics-token', 'metrics.token', '--listen', '0.0.0.0:7420', '--tls-cert', 'tls/cert.pem', '--tls-key', 'tls/key.pem',
      '--backup-every', '6h', '--backup-dir', 'backups', '--backup-keep', '10000',
    ],
  },
  { args: ['--grace', '0', '--max-executors', '1', '--kill-after', '0', '--backup-every', '1s', '--backup-dir', '/srv/backups', '--backup-keep', '1'] },
  { args: ['--grace', '24d', '--schedule-grace', '2w', '--backup-every', '24d', '--backup-dir', '/srv/backups'] },
  { args: ['--store', 'postgres://spool:secret@db.internal:5432/spool', '--store-poll'] },
  { args: ['--store-poll'], env: { ...ENV, SPOOL_STORE: 'postgresql://spool@db.internal/spool' } },
];

test('both programs read the command lines they accept into the same options', async () => {
  const given = new Set<string>();
  for (const { args, env } of ACCEPTED) {
    const daemon = await spoold(['--socket', SOCKET, ...args], env);
    const cli = await spoolDaemon(args, env);
    assert.ok('options' in daemon, `spoold refused ${args.join(' ')}: ${'refused' in daemon ? daemon.refused : ''}`);
    assert.deepEqual(cli, { options: daemon.options }, `spool daemon ${args.join(' ')}`);
    for (const arg of args) given.add(arg);
  }
  for (const flag of DAEMON_FLAGS.filter((f) => !f.cliGlobal)) assert.ok(given.has(flag.flag), `no accepted command line gives ${flag.flag}`);
});

/**
 * Command lines both programs refuse, with the message, which names the flag at fault and says
 * what is allowed. Every limit of the table is here, on both sides.
 */
const REFUSED: readonly { args: string[]; env?: Env; message: string }[] = [
  { args: ['--max-executors', '0'], message: 'Invalid --max-executors "0": a whole number from 1 to 1024.' },
  { args: ['--max-executors', '1025'], message: 'Invalid --max-executors "1025": a whole number from 1 to 1024.' },
  { args: ['--max-executors', '2.5'], message: 'Invalid --max-executors "2.5": a whole number from 1 to 1024.' },
  { args: ['--backup-every', '6h', '--backup-dir', 'b', '--backup-keep', '0'], message: 'Invalid --backup-keep "0": a whole number from 1 to 10000.' },
  { args: ['--backup-every', '6h', '--backup-dir', 'b', '--backup-keep', '10001'], message: 'Invalid --backup-keep "10001": a whole number from 1 to 10000.' },
  { args: ['--backup-every', '999ms', '--backup-dir', 'b'], message: '--backup-every 999ms is too short: at least 1s.' },
  { args: ['--backup-every', '25d', '--backup-dir', 'b'], message: '--backup-every 25d is too long: at most 24d.' },
  { args: ['--kill-after', '1h1s'], message: '--kill-after 1h1s is too long: at most 1h.' },
  { args: ['--grace', '25d'], message: '--grace 25d is too long: at most 24d.' },
  { args: ['--grace', 'soon'], message: 'Invalid duration "soon" for --grace: use a number with a unit (ms, s, m, h, d or w), like 500ms, 30s, 5m, 1h30m or 2d.' },
  { args: ['--grace', '10000'], message: 'Invalid duration "10000" for --grace: a number needs a unit (ms, s, m, h, d or w), e.g. 10000s or 10000m.' },
  { args: ['--schedule-grace', '-5s'], message: 'Invalid duration "-5s" for --schedule-grace: it cannot be negative.' },
  { args: ['--log-format', 'xml'], message: 'Unknown --log-format "xml": use text or json.' },
  { args: ['--name', ' '], message: '--name must not be empty: it names the daemon on its metrics.' },
  { args: ['--db', ''], message: '--db must not be empty: give the SQLite database file.' },
  { args: ['--store', 'mysql://spool:secret@db/spool'], message: '--store: expected postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE, not a mysql:// URL (leave --store out to use the SQLite file).' },
  { args: [], env: { ...ENV, SPOOL_STORE: 'postgres://spool:secret@db' }, message: 'SPOOL_STORE: the URL names no database: postgres://USER@HOST:PORT/DATABASE.' },
  { args: ['--store-poll'], message: '--store-poll works with the PostgreSQL store only: give --store postgres://… (or SPOOL_STORE) too.' },
  {
    args: ['--store', 'postgres://spool@db/spool', '--durable'],
    message: "--durable is for the SQLite store; on PostgreSQL, durability is the server's synchronous_commit and backups are pg_dump's.",
  },
  { args: ['--backup-every', '6h'], message: 'Scheduled backups need both --backup-every (how often, e.g. 6h) and --backup-dir (the folder).' },
  { args: ['--backup-keep', '3'], message: 'Scheduled backups need both --backup-every (how often, e.g. 6h) and --backup-dir (the folder).' },
];

test('both programs refuse the same command lines with the same message, which names the flag', async () => {
  for (const { args, env, message } of REFUSED) {
    assert.deepEqual(await spoold(['--socket', SOCKET, ...args], env), { refused: message }, `spoold ${args.join(' ')}`);
    assert.deepEqual(await spoolDaemon(args, env), { refused: message }, `spool daemon ${args.join(' ')}`);
    assert.ok(/(--[a-z-]+|SPOOL_STORE)/.test(message), `the message names the flag: ${message}`);
    assert.ok(!message.includes('secret'), 'a message never repeats the password of a store URL');
  }
});

test('the millisecond spellings spoold used to take are unknown to both programs', async () => {
  for (const [old, now] of [['--grace-ms', '--grace'], ['--kill-after-ms', '--kill-after'], ['--schedule-grace-ms', '--schedule-grace']]) {
    const daemon = await spoold([old!, '500']);
    const cli = await spoolDaemon([old!, '500']);
    assert.deepEqual(daemon, cli);
    assert.ok('refused' in daemon && daemon.refused.includes(`unknown option '${old}'`) && daemon.refused.includes(now!), JSON.stringify(daemon));
  }
});

test('stop --timeout takes a duration in both programs, with the same limits', async () => {
  const stop = async (args: string[]): Promise<number | string> => {
    // A program of its own for each command line: commander keeps option values between parses.
    let waited: number | undefined;
    const program = spooldProgram({ start: async () => {}, stop: async (_socket, timeoutMs) => void (waited = timeoutMs), status: async () => {}, checkDatabase: async () => {} }, ENV);
    quiet(program);
    try {
      await program.parseAsync(['stop', ...args], { from: 'user' });
    } catch (error) {
      return messageOf(error);
    }
    assert.ok(waited !== undefined);
    return waited;
  };
  const cli = async (args: string[]): Promise<number | string> => {
    const { program: spool, collected } = spoolDaemonCommand();
    try {
      await spool.parseAsync(['daemon', 'stop', ...args], { from: 'user' });
      const timeout = collected()['timeout'];
      return parseStopTimeout(typeof timeout === 'string' ? timeout : undefined);
    } catch (error) {
      return messageOf(error);
    }
  };
  for (const [args, expected] of [
    [[], 30_000],
    [['--timeout', '2m'], 120_000],
    [['--timeout', '0'], '--timeout 0 is too short: at least 1ms.'],
    [['--timeout', '30'], 'Invalid duration "30" for --timeout: a number needs a unit (ms, s, m, h, d or w), e.g. 30s or 30m.'],
  ] as const) {
    assert.equal(await stop([...args]), expected, `spoold stop ${args.join(' ')}`);
    assert.equal(await cli([...args]), expected, `spool daemon stop ${args.join(' ')}`);
  }
  assert.match(String(await stop(['--timeout-ms', '500'])), /unknown option '--timeout-ms'/);
});

test('the defaults are the table\'s', () => {
  const options = defaultDaemonOptions(ENV);
  assert.equal(options.socketPath, '/run/user/1000/spool/spool.sock');
  assert.equal(options.dbPath, '/home/flags/.local/share/spool/spool.db');
  assert.equal(options.store, null);
  assert.equal(options.graceMs, DEFAULT_GRACE_MS);
  assert.equal(options.killGraceMs, DEFAULT_KILL_GRACE_MS);
  assert.equal(options.scheduleGraceMs, DEFAULT_SCHEDULE_GRACE_MS);
  assert.equal(options.logFormat, 'text');
  assert.equal(options.groupCommit, true);
  assert.equal(options.backups, null);
  assert.equal(defaultDaemonOptions({ ...ENV, SPOOL_STORE: 'postgres://u@h/d' }).store, 'postgres://u@h/d');
});

test('optionsToArgs reads back through spoold as the same options, every field, and never carries the store URL', async () => {
  const defaults = defaultDaemonOptions(ENV);
  const sqlite: DaemonOptions = {
    ...defaults,
    socketPath: '/tmp/spool-flags/other.sock',
    dbPath: '/tmp/spool-flags/other.db',
    durable: true,
    logFormat: 'json',
    graceMs: 1234,
    maxExecutors: defaults.maxExecutors === 3 ? 4 : 3,
    killGraceMs: 2_500,
    scheduleGraceMs: 2 * 86_400_000,
    groupCommit: false,
    history: false,
    historyMinuteDays: 14,
    historyHourDays: 365,
    name: 'build box',
    metrics: '[::1]:9464',
    metricsAllowRemote: true,
    metricsToken: '/etc/spool/metrics.token',
    listen: '0.0.0.0:7420',
    tlsCert: '/etc/spool/cert.pem',
    tlsKey: '/etc/spool/key.pem',
    backups: { everyMs: 6 * 3_600_000, dir: '/srv/backups', keep: DEFAULT_BACKUP_KEEP + 3 },
  };
  const postgres: DaemonOptions = { ...defaults, store: 'postgres://spool:secret@db.internal:5432/spool', storePoll: true };
  const fields = Object.keys(defaults) as (keyof DaemonOptions)[];
  for (const field of fields) {
    assert.ok(
      [sqlite, postgres].some((options) => JSON.stringify(options[field]) !== JSON.stringify(defaults[field])),
      `the round trip leaves ${field} at its default, so it would not show that the field survives`,
    );
  }
  for (const options of [sqlite, postgres, defaults]) {
    const args = optionsToArgs(options);
    assert.ok(!args.some((arg) => arg.includes('secret')), `the store URL stays off the command line: ${args.join(' ')}`);
    const read = await spoold(args, { ...ENV, ...optionsToEnv(options) });
    assert.deepEqual(read, { options, detach: false }, args.join(' '));
  }
});

test("the extension's launcher starts spoold detached on its socket and database, with the daemon's defaults for the rest", async () => {
  const script = '/ext/dist/daemon.js';
  const withDb = launchArgs(script, { socketPath: '/tmp/ext.sock', databasePath: '/tmp/ext.db' });
  assert.equal(withDb[0], script);
  assert.deepEqual(await spoold(withDb.slice(1)), { options: { ...defaultDaemonOptions(ENV), socketPath: '/tmp/ext.sock', dbPath: '/tmp/ext.db' }, detach: true });
  const withoutDb = launchArgs(script, { socketPath: '/tmp/ext.sock', databasePath: '' });
  assert.deepEqual(await spoold(withoutDb.slice(1)), { options: { ...defaultDaemonOptions(ENV), socketPath: '/tmp/ext.sock' }, detach: true });
});

/** The table as docs/cli.md shows it: one row per flag, with its argument, what it does, its default and what is allowed. */
function docsTable(): string {
  const row = (flag: DaemonFlag | CommandFlag): string =>
    `| \`${flagUsage(flag)}\` | ${'command' in flag && flag.command !== null ? `${flag.command}: ` : ''}${flag.help} | ${flag.defaultText ?? '—'} | ${flag.allowed ?? '—'} |`;
  return ['| flag | what it does | default | allowed |', '| --- | --- | --- | --- |', ...[...DAEMON_FLAGS, DETACH_FLAG, STOP_TIMEOUT_FLAG].map(row)].join('\n');
}

test('docs/cli.md shows every flag of the table as the table says it', () => {
  const doc = fs.readFileSync(path.join(ROOT, 'docs', 'cli.md'), 'utf8');
  for (const flag of [...DAEMON_FLAGS, DETACH_FLAG, STOP_TIMEOUT_FLAG]) assert.ok(doc.includes(`\`${flagUsage(flag)}\``), `docs/cli.md does not name ${flagUsage(flag)}`);
  const expected = docsTable();
  assert.ok(doc.includes(expected), `docs/cli.md's table of the daemon's flags differs from the table in shared/client/daemonFlags.ts; it should read:\n\n${expected}\n`);
});

test('no document names a flag spoold no longer takes', () => {
  const gone = /--(grace|kill-after|schedule-grace|timeout)-ms\b/;
  const docs = [path.join(ROOT, 'README.md'), ...fs.readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => path.join(ROOT, 'docs', f))];
  for (const file of docs) {
    const match = gone.exec(fs.readFileSync(file, 'utf8'));
    assert.ok(match === null, `${path.relative(ROOT, file)} names ${match?.[0]}`);
  }
});
