/**
 * The daemon's launcher of shell jobs (daemon/executors/launcher.ts) under the process-group
 * runner, with real processes: a command started by the launcher (its source, through tsx) gives
 * its output, stdin, exit code and pid as one started here would; a launcher that cannot start
 * hands its commands on, and after three tries the daemon starts them itself.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { runProcessGroup } from '../../shared/client/processGroup';
import { Launcher } from '../../daemon/executors/launcher';
import { createLogger } from '../../daemon/lifecycle/logger';

function launcherFor(t: { after: (fn: () => void) => void }, where?: { script: string; execArgv: string[] }): { launcher: Launcher; log: string[] } {
  const log: string[] = [];
  const launcher = new Launcher(createLogger('text', (line) => log.push(line)), where);
  t.after(() => launcher.close());
  return { launcher, log };
}

async function runThrough(launcher: Launcher, command: string, stdin?: string) {
  const output = { stdout: '', stderr: '' };
  const group = runProcessGroup<'cancel'>({
    command,
    env: { PATH: process.env.PATH, ONLY: 'this' },
    ...(stdin === undefined ? {} : { stdin }),
    timeoutMs: 60_000,
    killGraceMs: 5_000,
    onOutput: (stream, chunk) => (output[stream] += chunk.toString('utf8')),
    spawner: launcher.spawn,
  });
  const exit = await group.done;
  return { exit, output, pid: group.pid };
}

test("a command started by the launcher gives its output, stdin, environment and exit code, in a group of its own under the launcher", async (t) => {
  const { launcher } = launcherFor(t);
  const { exit, output, pid } = await runThrough(launcher, 'read line; echo "$line $ONLY"; echo err >&2; echo "$$ $PPID" ; cut -d " " -f 5 /proc/$$/stat; exit 3', 'from stdin');
  assert.deepEqual(exit, { code: 3, signal: null, stoppedFor: null, spawnError: null });
  const [first, ids, pgid] = output.stdout.trim().split('\n');
  assert.equal(first, 'from stdin this');
  assert.equal(output.stderr, 'err\n');
  assert.equal(ids, `${pid} ${launcher.pid}`);
  assert.equal(Number(pgid), pid);
  assert.notEqual(launcher.pid, process.pid);
});

test('a launcher that cannot start hands its commands to the next; after three the daemon starts them itself', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spool-launcher-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const broken = path.join(dir, 'launcher.js');
  fs.writeFileSync(broken, 'process.exit(7);\n');
  const { launcher, log } = launcherFor(t, { script: broken, execArgv: [] });
  const { exit, output } = await runThrough(launcher, 'echo "$PPID"');
  assert.equal(exit.code, 0);
  // Started from this process in the end.
  assert.equal(output.stdout.trim(), String(process.pid));
  const text = log.join('');
  assert.match(text, /The launcher of shell jobs failed to start; trying again at the next job/);
  assert.match(text, /the daemon starts shell jobs itself from now on/);
  assert.match(text, /exit code 7/);
});
