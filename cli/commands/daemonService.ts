/**
 * `spool daemon install-service`: the daemon as a systemd user service. Writes
 * `~/.config/systemd/user/spool.service` (or `--unit NAME`), whose ExecStart runs this install's
 * daemon program with this Node.js, by absolute paths, with the daemon flags given to the command
 * (and the socket and database it would use now, made absolute). The unit is 0644 and holds no
 * secret: files (`--metrics-token`, `--tls-key`) are named by path, and a `--store` URL with a
 * password goes into a 0600 file the unit names (see storePlace). An existing, different unit is replaced only with `--force`; `--print`
 * prints the unit and writes nothing.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { daemonScriptPath, DAEMON_NODE_FLAGS } from '../../shared/client/daemonProcess';
import { DAEMON_FLAGS, givenDaemonFlags, optionsToArgs } from '../../shared/client/daemonFlags';
import type { DaemonOptions } from '../../shared/client/daemonOptions';
import type { Env } from '../../shared/client/paths';
import { CliError } from '../errors';

/** The options `install-service` adds to `spool daemon`. */
export interface ServiceFlags {
  unit?: string;
  force?: boolean;
  print?: boolean;
}

export const DEFAULT_UNIT = 'spool';

/** What stopping the service may take beyond the daemon's grace and kill grace: closing the store. */
const STOP_MARGIN_MS = 30_000;

/** The unit's name without `.service`, checked: systemd takes letters, digits and `-_.@` (and `\`, which is left out here). */
export function unitName(given: string | undefined): string {
  if (given === undefined) return DEFAULT_UNIT;
  const name = given.endsWith('.service') ? given.slice(0, -'.service'.length) : given;
  if (!/^[A-Za-z0-9][A-Za-z0-9_.@-]{0,200}$/.test(name)) {
    throw new CliError(`Invalid --unit "${given}": a service name of letters, digits and - _ . @, starting with a letter or digit (e.g. spool-ci).`);
  }
  return name;
}

/** Where systemd looks for the user's own units: `$XDG_CONFIG_HOME/systemd/user`, else `~/.config/systemd/user`. */
export function userUnitFolder(env: Env = process.env): string {
  return path.join(configHome(env), 'systemd', 'user');
}

/** `$XDG_CONFIG_HOME`, else `~/.config`. */
function configHome(env: Env): string {
  return env['XDG_CONFIG_HOME'] || path.join(env['HOME'] || os.homedir(), '.config');
}

/** A word of a unit's ExecStart: as it is when plain, else in double quotes; `%` and `$` doubled so systemd keeps them. */
export function execWord(word: string): string {
  refuseControl(word);
  const escaped = word.replace(/%/g, '%%').replace(/\$/g, '$$$$');
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(escaped) ? escaped : `"${escaped.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/** A path as EnvironmentFile= takes it: unquoted (the rest of the line), `%` doubled. */
function rawPath(file: string): string {
  refuseControl(file);
  return file.replace(/%/g, '%%');
}

/** `Environment="NAME=value"`, quoted for systemd. */
function environmentLine(name: string, value: string): string {
  refuseControl(value);
  return `Environment="${`${name}=${value}`.replace(/%/g, '%%').replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

function refuseControl(text: string): void {
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x1f\x7f]/.test(text)) throw new CliError(`A unit file cannot hold "${JSON.stringify(text).slice(1, -1)}": it has a control character (a line break?). Rename it.`);
}

/**
 * The daemon's settings to carry into the unit: the socket and database it would use now (made
 * absolute, so the service meets `spool` where it looks today), and each flag given. Defaults
 * that depend on the machine (the number of CPUs for --max-executors) stay the daemon's own.
 */
function carriedOptions(options: DaemonOptions, values: Readonly<Record<string, unknown>>): Partial<DaemonOptions> {
  const carried: Record<string, unknown> = { socketPath: path.resolve(options.socketPath), dbPath: path.resolve(options.dbPath) };
  const given = new Set(givenDaemonFlags(values));
  for (const flag of DAEMON_FLAGS) {
    if (!given.has(flag.flag)) continue;
    const field = flag.field.split('.')[0] as keyof DaemonOptions;
    if (field !== 'socketPath' && field !== 'dbPath') carried[field] = options[field];
  }
  return carried as Partial<DaemonOptions>;
}

/**
 * Where the store URL goes. Without a password, on ExecStart. With one, in a file of its own that
 * only the user may read (`~/.config/spool/NAME.env`, 0600 in a 0700 folder), which the unit names
 * as its EnvironmentFile: the daemon reads SPOOL_STORE from there, and the unit, which every user
 * of the machine may read, holds only the file's path.
 */
function storePlace(store: string | null, name: string, env: Env): { args: string[]; secretFile: { path: string; text: string } | null } {
  if (store === null) return { args: [], secretFile: null };
  if (new URL(store).password === '') return { args: ['--store', store], secretFile: null };
  // systemd reads a single-quoted value as it is; a URL has no quote, backslash or line break unless mistyped.
  if (/['\\\x00-\x1f\x7f]/.test(store)) throw new CliError('The --store URL has a quote, a backslash or a control character: percent-encode them (%27, %5C).');
  return { args: [], secretFile: { path: path.join(configHome(env), 'spool', `${name}.env`), text: `# The store URL of the ${name} service (it holds a password): only you may read this file.\nSPOOL_STORE='${store}'\n` } };
}

/** The files the daemon would read at start, checked now so that a typo is found here rather than in the journal. */
function checkFiles(options: Partial<DaemonOptions>): void {
  const files: [string, string | null | undefined][] = [
    ['--metrics-token', options.metricsToken],
    ['--tls-cert', options.tlsCert],
    ['--tls-key', options.tlsKey],
  ];
  for (const [flag, file] of files) {
    if (file && !fs.existsSync(file)) throw new CliError(`${flag} ${file}: no such file. The service's daemon would not start without it.`);
  }
}

export interface ServiceUnit {
  name: string;
  file: string;
  text: string;
  socketPath: string;
  /** The file the unit reads the store URL from, when the URL holds a password; written 0600 beside the unit's. */
  secretFile: { path: string; text: string } | null;
}

/** The unit for a daemon with `options`, of which the flags in `values` were given. */
export function serviceUnit(options: DaemonOptions, values: Readonly<Record<string, unknown>> & ServiceFlags, env: Env = process.env): ServiceUnit {
  if (values['detach']) throw new CliError('--detach does not go with install-service: systemd runs the daemon and keeps it running.');
  const name = unitName(values.unit);
  const carried = carriedOptions(options, values);
  checkFiles(carried);
  const store = storePlace(options.store, name, env);
  const exec = [process.execPath, ...DAEMON_NODE_FLAGS, daemonScriptPath(), ...optionsToArgs(carried), ...store.args];
  const stopSeconds = Math.ceil((options.graceMs + options.killGraceMs + STOP_MARGIN_MS) / 1000);
  const envPath = env['PATH'];
  const lines = [
    `# The Spool daemon as a systemd user service, written by \`spool daemon install-service\`.`,
    `# Start it now and at every login:  systemctl --user daemon-reload && systemctl --user enable --now ${name}`,
    `# Its log:                          journalctl --user -u ${name}`,
    `# To change its flags, run the command again with them and --force (then daemon-reload and restart).`,
    '[Unit]',
    'Description=Spool daemon',
    '',
    '[Service]',
    'Type=simple',
    `ExecStart=${exec.map(execWord).join(' ')}`,
    ...(envPath ? ['# The PATH of the shell that installed the service, for shell jobs.', environmentLine('PATH', envPath)] : []),
    ...(store.secretFile === null ? [] : ['# SPOOL_STORE, the store URL with its password, in a file only you may read.', `EnvironmentFile=${rawPath(store.secretFile.path)}`]),
    '# SIGTERM to the daemon alone: it gives running built-in jobs its --grace to finish, then stops',
    "# their processes itself (SIGKILL after --kill-after); systemd kills what is left after TimeoutStopSec.",
    'KillMode=mixed',
    `TimeoutStopSec=${stopSeconds}s`,
    'Restart=on-failure',
    'RestartSec=5s',
    '# Lets the daemon give each shell job a cgroup of its own under the service\'s (see spool daemon status).',
    'Delegate=yes',
    '',
    '[Install]',
    'WantedBy=default.target',
    '',
  ];
  return { name, file: path.join(userUnitFolder(env), `${name}.service`), text: lines.join('\n'), socketPath: carried.socketPath ?? options.socketPath, secretFile: store.secretFile };
}

/** What writing the unit did. */
export type Written = 'written' | 'replaced' | 'unchanged';

/**
 * Writes the unit (0644, its folders made as needed). An existing file with other text is
 * replaced only with `force`.
 */
export function writeServiceUnit(unit: ServiceUnit, force: boolean): Written {
  let existing: string | null = null;
  try {
    existing = fs.readFileSync(unit.file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  if (existing !== null && existing !== unit.text && !force) {
    throw new CliError(`${unit.file} exists and differs from the unit these flags make. Replace it with --force, or name another service with --unit NAME; --print shows the new unit.`);
  }
  if (unit.secretFile !== null) {
    const folder = path.dirname(unit.secretFile.path);
    fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
    fs.chmodSync(folder, 0o700);
    replaceFile(unit.secretFile.path, unit.secretFile.text, 0o600);
  }
  if (existing === unit.text) return 'unchanged';
  fs.mkdirSync(path.dirname(unit.file), { recursive: true, mode: 0o755 });
  replaceFile(unit.file, unit.text, 0o644);
  return existing === null ? 'written' : 'replaced';
}

/** Writes `file` whole through a temporary file beside it, with `mode` from the start. */
function replaceFile(file: string, text: string, mode: number): void {
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, text, { mode });
  fs.chmodSync(temporary, mode);
  fs.renameSync(temporary, file);
}

/** The commands to run next, for the CLI to print. */
export function enableSteps(name: string): string {
  return [
    'Start it now and at every login:',
    `  systemctl --user daemon-reload && systemctl --user enable --now ${name}`,
    'Keep it running after you log out (and start it at boot):',
    '  loginctl enable-linger',
    `Its log: journalctl --user -u ${name}`,
  ].join('\n');
}
