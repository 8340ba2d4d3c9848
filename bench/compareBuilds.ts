/**
 * The two builds `bench compare` runs: a folder holding a built checkout, used as it is, or a git
 * ref, extracted (`git archive`) into the comparison's temporary folder and built there with this
 * checkout's node_modules. Only the build's `dist/daemon.js` is used, as a process: nothing of the
 * other build's code is imported, so builds on either side of a change of the daemon's internals
 * compare alike.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { UsageError } from './compareArgs';
import { trackBenchProcess } from './daemon';

/** A build ready to be benchmarked. */
export interface Build {
  /** Its checkout (the temporary one for a git ref). */
  root: string;
  /** The daemon program the benchmark starts. */
  daemonScript: string;
  /** Where it comes from, for the report: a folder and its commit, or a git ref and its commit. */
  description: string;
  /** The SQLite and better-sqlite3 versions its daemon loads. */
  sqlite: string;
}

/** The daemon flags the comparison passes; both builds must know them. */
const REQUIRED_DAEMON_FLAGS = ['--socket', '--db'] as const;

/** Output of a finished command; an Error naming the command and its output when it fails. */
export function runCommand(command: string, args: readonly string[], cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, [...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    trackBenchProcess(child);
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.once('error', (error) => reject(new Error(`${command} ${args.join(' ')} (in ${cwd}) could not start: ${error.message}`)));
    child.once('close', (code, signal) => {
      if (code === 0) resolve(out);
      else reject(new Error(`${command} ${args.join(' ')} (in ${cwd}) failed (${signal ?? `exit code ${code}`}):\n${err}${out}`));
    });
  });
}

/**
 * Makes `given` (the value of `--old` or `--new`) a build. A folder is used as it is and must
 * hold `dist/daemon.js`; anything else must be a git ref of `repoRoot`'s repository, which is built
 * in `workRoot/<option>`.
 */
export async function prepareBuild(option: 'old' | 'new', given: string, repoRoot: string, workRoot: string, log: (line: string) => void): Promise<Build> {
  const folder = path.resolve(given);
  const isFolder = fs.existsSync(folder) && fs.statSync(folder).isDirectory();
  const build = isFolder ? await existingBuild(option, folder) : await buildRef(option, given, repoRoot, workRoot, log);
  await checkDaemonFlags(option, build.daemonScript, build.root);
  return build;
}

async function existingBuild(option: string, root: string): Promise<Build> {
  const daemonScript = path.join(root, 'dist', 'daemon.js');
  if (!fs.existsSync(daemonScript)) {
    throw new UsageError(`--${option}: ${root} has no dist/daemon.js. Build that checkout first (npm run build in it), or give a git ref instead.`);
  }
  let description = `${root} (not a git checkout)`;
  try {
    const commit = (await runCommand('git', ['rev-parse', '--short', 'HEAD'], root)).trim();
    const changes = (await runCommand('git', ['status', '--porcelain', '--untracked-files=no'], root)).trim();
    description = `${root} at ${commit}${changes === '' ? '' : ' with uncommitted changes'} (its dist/ as built)`;
  } catch {
    // Not a git checkout: the folder alone says what was measured.
  }
  return { root, daemonScript, description, sqlite: await sqliteVersion(root) };
}

async function buildRef(option: string, ref: string, repoRoot: string, workRoot: string, log: (line: string) => void): Promise<Build> {
  let commit: string;
  try {
    commit = (await runCommand('git', ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], repoRoot)).trim();
  } catch {
    throw new UsageError(`--${option}: '${ref}' is neither a folder nor a git ref of the repository at ${repoRoot}.`);
  }
  const short = commit.slice(0, 7);
  const root = path.join(workRoot, option);
  log(`Building ${ref} (${short}) for --${option} in ${root} …`);
  fs.mkdirSync(root);
  // `git archive` rather than `git worktree add`: nothing is registered in the repository, so an
  // interrupted run leaves at most a temporary folder behind.
  const archive = path.join(workRoot, `${option}.tar`);
  await runCommand('git', ['archive', '--format=tar', '-o', archive, commit], repoRoot);
  await runCommand('tar', ['-xf', archive, '-C', root], repoRoot);
  fs.rmSync(archive);
  fs.symlinkSync(fs.realpathSync(path.join(repoRoot, 'node_modules')), path.join(root, 'node_modules'), 'dir');
  await runCommand(process.execPath, ['esbuild.mjs'], root);
  const daemonScript = path.join(root, 'dist', 'daemon.js');
  if (!fs.existsSync(daemonScript)) throw new Error(`--${option}: building ${ref} (${short}) made no dist/daemon.js.`);
  return { root, daemonScript, description: `git ref ${ref} = ${short}, built in a temporary folder with this checkout's node_modules`, sqlite: await sqliteVersion(root) };
}

/**
 * An older build may lack flags added since; the comparison passes only `--socket` and `--db`,
 * and checks here that the build's daemon lists them, rather than failing at the first start.
 */
async function checkDaemonFlags(option: string, daemonScript: string, root: string): Promise<void> {
  const help = await runCommand(process.execPath, [daemonScript, '--help'], root);
  const missing = REQUIRED_DAEMON_FLAGS.filter((flag) => !help.includes(flag));
  if (missing.length > 0) throw new UsageError(`--${option}: ${daemonScript} does not know ${missing.join(' and ')}, which the comparison needs.`);
}

/** The SQLite and better-sqlite3 versions that the build's daemon loads (from its own node_modules). */
async function sqliteVersion(root: string): Promise<string> {
  const script = `
    const from = { paths: [require('node:path').join(process.cwd(), 'dist')] };
    const Database = require(require.resolve('better-sqlite3', from));
    const db = new Database(':memory:');
    const sqlite = db.prepare('SELECT sqlite_version()').pluck().get();
    db.close();
    const driver = require(require.resolve('better-sqlite3/package.json', from)).version;
    process.stdout.write('SQLite ' + sqlite + ', better-sqlite3 ' + driver);`;
  try {
    return (await runCommand(process.execPath, ['-e', script], root)).trim();
  } catch (error) {
    return `unknown (${error instanceof Error ? error.message.split('\n')[0] : String(error)})`;
  }
}
