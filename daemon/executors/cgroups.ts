/**
 * Containing shell jobs in a cgroup (v2) each, where the daemon may make one.
 *
 * A process group and the SPOOL_JOB_ID in a process's environment find most of what a job
 * starts, but a process can leave both: `setsid` and `env -u SPOOL_JOB_ID` (or a program that
 * clears its environment) and it survives the job's cancel. A cgroup cannot be left: every
 * process the shell starts is born in it, and `cgroup.kill` SIGKILLs them all at once. So, when
 * the cgroup v2 hierarchy is mounted and the daemon may create a cgroup under its own (root, or a
 * user whose systemd slice delegates its subtree), each shell job runs in
 * `<the daemon's cgroup>/spool/job-<id>`: the shell writes its own pid into the cgroup before it
 * runs the command, a stop signals every process in it, and when the shell exits whatever is
 * left in it is killed and the cgroup removed. A daemon killed outright leaves its jobs' cgroups
 * behind; the next daemon kills and removes those of the jobs it recovers.
 *
 * Where none can be made (no cgroup v2, a folder the user may not write), the daemon says why in
 * its log and status, and falls back to the process group and the /proc scan (leftovers.ts).
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { JobContainer } from '../../shared/client/processGroup';
import { errorMessage } from '../../shared/protocol/errors';

/** How shell jobs are contained, for `daemon.status` and the log. */
export type Containment = { kind: 'cgroup'; path: string } | { kind: 'process-group'; reason: string };

/** The containment in words, for the log. */
export function containmentWords(found: Containment): string {
  return found.kind === 'cgroup' ? `a cgroup per shell job under ${found.path}` : `process groups and SPOOL_JOB_ID only: ${found.reason}`;
}

let detected: Containment | null = null;

/** Where the cgroup v2 hierarchy is mounted, from /proc/self/mountinfo, or null. */
function cgroup2Mount(): string | null {
  const lines = fs.readFileSync('/proc/self/mountinfo', 'utf8').split('\n');
  for (const line of lines) {
    // "36 25 0:31 / /sys/fs/cgroup rw,… - cgroup2 cgroup2 rw,…": the type follows the " - ".
    const [before, after] = line.split(' - ');
    if (before === undefined || after === undefined || after.split(' ')[0] !== 'cgroup2') continue;
    const mountPoint = before.split(' ')[4];
    if (mountPoint !== undefined) return mountPoint.replace(/\\040/g, ' ');
  }
  return null;
}

/** Finds out once whether jobs can get a cgroup each here: one is made and a process moved into it. */
export function containment(): Containment {
  if (detected !== null) return detected;
  detected = detect();
  return detected;
}

function detect(): Containment {
  if (process.platform !== 'linux') return { kind: 'process-group', reason: 'cgroups are a Linux feature' };
  let mount: string | null;
  let own: string | undefined;
  try {
    mount = cgroup2Mount();
    own = /^0::(.*)$/m.exec(fs.readFileSync('/proc/self/cgroup', 'utf8'))?.[1];
  } catch (error) {
    return { kind: 'process-group', reason: `cannot read the cgroups of this process: ${errorMessage(error)}` };
  }
  if (mount === null || own === undefined) return { kind: 'process-group', reason: 'no cgroup v2 hierarchy is mounted' };
  const parent = path.join(mount, own);
  const base = path.join(parent, 'spool');
  try {
    fs.mkdirSync(base, { recursive: true });
    // A process must be movable into a cgroup made there: the daemon needs write access to its
    // own cgroup's cgroup.procs too, which a delegated subtree gives and a plain one does not.
    const probe = path.join(base, `probe-${process.pid}`);
    fs.mkdirSync(probe, { recursive: true });
    try {
      const moved = spawnSync('/bin/sh', ['-c', 'echo $$ > "$0"', path.join(probe, 'cgroup.procs')], { encoding: 'utf8', timeout: 10_000 });
      if (moved.status !== 0) return { kind: 'process-group', reason: `cannot move a process into a cgroup under ${base}: ${moved.stderr.trim() || `exit ${moved.status}`}` };
      if (!fs.existsSync(path.join(probe, 'cgroup.kill'))) return { kind: 'process-group', reason: 'the kernel has no cgroup.kill (Linux 5.14 or later has it)' };
    } finally {
      removeWhenEmpty(probe);
    }
  } catch (error) {
    return { kind: 'process-group', reason: `cannot create a cgroup under ${parent}: ${errorMessage(error)}` };
  }
  removeEmptyLeftovers(base);
  return { kind: 'cgroup', path: base };
}

/** A job's cgroup younger than this may be one another daemon just made, its shell not yet in it. */
const LEFTOVER_AGE_MS = 60_000;

/**
 * Removes the empty job cgroups that killed daemons left (their processes gone since), those of
 * jobs no daemon recovers included. The kernel refuses to remove one that holds a process.
 */
function removeEmptyLeftovers(base: string): void {
  for (const name of fs.readdirSync(base)) {
    const cgroup = path.join(base, name);
    if (!name.startsWith('job-')) continue;
    try {
      if (Date.now() - fs.statSync(cgroup).mtimeMs > LEFTOVER_AGE_MS && pidsIn(cgroup).length === 0) removeWhenEmpty(cgroup);
    } catch {
      // Removed by another daemon meanwhile.
    }
  }
}

/** Removes an empty cgroup; one still populated stays (the kernel refuses with EBUSY). */
function removeWhenEmpty(cgroup: string): boolean {
  try {
    fs.rmdirSync(cgroup);
    return true;
  } catch (error) {
    if (error instanceof Error && 'code' in error && error.code === 'ENOENT') return true;
    return false;
  }
}

function pidsIn(cgroup: string): number[] {
  try {
    return fs.readFileSync(path.join(cgroup, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** SIGKILLs everything in `cgroup` and removes it once the kernel has emptied it (up to `waitMs`). */
async function killAndRemove(cgroup: string, waitMs: number): Promise<boolean> {
  if (!fs.existsSync(cgroup)) return true;
  try {
    fs.writeFileSync(path.join(cgroup, 'cgroup.kill'), '1');
  } catch {
    for (const pid of pidsIn(cgroup)) signal(pid, 'SIGKILL');
  }
  const deadline = Date.now() + waitMs;
  while (!removeWhenEmpty(cgroup)) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // Gone already.
  }
}

/** How long a cgroup may take to empty after cgroup.kill before it is left for the next start. */
const EMPTY_WAIT_MS = 5000;

/**
 * A cgroup of its own for job `jobId`, or null where jobs cannot have one (containment() says
 * why) or this one could not be made (`problem` is told why; the job then runs in its process
 * group alone).
 */
export function jobCgroup(jobId: string, problem: (message: string) => void): JobContainer | null {
  const found = containment();
  if (found.kind !== 'cgroup') return null;
  const cgroup = path.join(found.path, `job-${jobId}`);
  try {
    // A cgroup a killed daemon left for this job holds its old processes: they go first.
    if (fs.existsSync(cgroup)) fs.writeFileSync(path.join(cgroup, 'cgroup.kill'), '1');
    fs.mkdirSync(cgroup, { recursive: true });
  } catch (error) {
    problem(`Could not make the job's cgroup ${cgroup} (${errorMessage(error)}); it runs in its process group only.`);
    return null;
  }
  return {
    procsFile: path.join(cgroup, 'cgroup.procs'),
    signal: (name) => {
      if (name === 'SIGKILL') void killAndRemove(cgroup, 0);
      else for (const pid of pidsIn(cgroup)) signal(pid, name);
    },
    close: async () => {
      if (!(await killAndRemove(cgroup, EMPTY_WAIT_MS))) problem(`The job's cgroup ${cgroup} did not empty within ${EMPTY_WAIT_MS} ms; the next daemon start removes it.`);
    },
  };
}

/**
 * Kills what a killed daemon's jobs left in their cgroups and removes them, for the jobs about to
 * be recovered. Returns the job ids whose cgroup still held processes.
 */
export async function stopLeftoverCgroups(jobIds: ReadonlySet<string>): Promise<string[]> {
  const found = containment();
  if (found.kind !== 'cgroup') return [];
  const held: string[] = [];
  for (const id of jobIds) {
    const cgroup = path.join(found.path, `job-${id}`);
    if (!fs.existsSync(cgroup)) continue;
    if (pidsIn(cgroup).length > 0) held.push(id);
    await killAndRemove(cgroup, EMPTY_WAIT_MS);
  }
  return held;
}
