/**
 * `spool top` in a real terminal: tmux (a server of the test's own, on its own socket) runs it in
 * a 120×40 window against a real daemon with known jobs; the test types keys with send-keys and
 * reads the screen with capture-pane, waiting for text with a deadline. It checks what the
 * screen shows, that pausing a queue and retrying a dead job through keys reach the daemon, that
 * the job's output shows and follows, that a resize lays the screen out again, that a lost daemon
 * is said and reconnected to, and that q and Ctrl-C end it with status 0 and give the shell its
 * screen back.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import type { SpoolClient } from '../../shared/client/client';
import { startDaemon, waitFor, type TestDaemon } from '../helpers/daemon';
import { runCli, SPOOL_BIN } from './cli-run';

const WAIT_MS = 30_000;

let daemon: TestDaemon;
let client: SpoolClient;
let tmuxSocket: string;
let deadId: string;
let gate: string;

function tmux(...args: string[]): string {
  const r = spawnSync('tmux', ['-S', tmuxSocket, ...args], { encoding: 'utf8', timeout: 10_000 });
  assert.equal(r.status, 0, `tmux ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

function screen(session: string): string {
  return tmux('capture-pane', '-p', '-t', session);
}

async function waitForScreen(session: string, what: string, check: (text: string) => boolean): Promise<string> {
  let last = '';
  try {
    return await waitFor(what, () => {
      last = screen(session);
      return check(last) ? last : undefined;
    }, WAIT_MS);
  } catch (error) {
    throw new Error(`${(error as Error).message}\nThe screen:\n${last}`);
  }
}

/** Starts `spool top` in a new tmux session; the shell says so before and tells its exit status after. */
function startTop(session: string, width = 120, height = 40): void {
  const command = `echo 'the shell before spool top'; SPOOL_SOCKET='${daemon.socketPath}' '${process.execPath}' '${SPOOL_BIN}' top; echo "spool top exited with $?"; exec cat`;
  tmux('new-session', '-d', '-s', session, '-x', String(width), '-y', String(height), command);
}

before(async () => {
  daemon = await startDaemon();
  client = await daemon.client();
  tmuxSocket = path.join(daemon.dir, 'tmux.sock');
  gate = path.join(daemon.dir, 'gate');
  const fixed = path.join(daemon.dir, 'smtp-fixed');
  // A job that dies (its last stderr line says why) until the test "fixes" it; retried, it completes.
  const dead = await client.call('jobs.enqueue', {
    queue: 'mail',
    kind: 'shell',
    payload: { command: `if [ -e '${fixed}' ]; then echo sent; else echo 'smtp: connection refused' >&2; exit 3; fi` },
    maxAttempts: 1,
  });
  deadId = dead.job.id;
  await waitFor('the mail job to end dead', async () => (await client.call('jobs.get', { id: deadId })).job.state === 'dead', WAIT_MS);
  fs.writeFileSync(fixed, '');
  // A job that runs until the test opens its gate (bounded: 120 s), printing as it goes.
  await client.call('jobs.enqueue', {
    queue: 'builds',
    kind: 'shell',
    payload: { command: `echo 'building step 1'; i=0; while [ ! -e '${gate}' ] && [ $i -lt 6000 ]; do sleep 0.02; i=$((i+1)); done; echo done` },
  });
  await waitFor('the builds job to run', async () => (await client.call('jobs.list', { queue: 'builds', states: ['running'] })).jobs.length === 1, WAIT_MS);
  // A job nobody takes, so its queue has one waiting.
  await client.call('jobs.enqueue', { queue: 'reports', kind: 'nobody-takes-this', payload: {} });
});

after(async () => {
  if (fs.existsSync(tmuxSocket)) spawnSync('tmux', ['-S', tmuxSocket, 'kill-server'], { timeout: 10_000 });
  if (gate) fs.writeFileSync(gate, '');
  await daemon.dispose();
});

test('spool top shows the queues, the running job and the dead one with why it died, and follows keys, resizes and a lost daemon', async () => {
  startTop('main');
  let text = await waitForScreen('main', 'the three panes with the known jobs', (s) => /^builds\s+0\s+1\b/m.test(s) && /^reports\s+1\s+0\b/m.test(s) && /Running \(1\)/.test(s) && /Recent failures \(1\)/.test(s));
  assert.match(text, /^spool top · .*spool\.sock · 1 running · 1 waiting · 1 dead/m);
  assert.match(text, /^mail\s+0\s+0\s+0\s+0\s+1\b/m, 'the mail queue has one dead job');
  // The dead job is among the recent failures, with why it died: its last stderr line and its exit.
  assert.match(text, new RegExp(`^${deadId.slice(-8)}\\s+mail\\s+shell\\s+(?:\\S+ ago|just now)\\s+smtp: connection refused · exit code 3$`, 'm'));
  // spool jobs says it in the same words.
  const listed = await runCli(['jobs', '--state', 'dead'], { socketPath: daemon.socketPath });
  assert.match(listed.stdout, /smtp: connection refused · exit code 3/);

  // Pause the reports queue with p on its row; the daemon has it paused, the row says so.
  const names = (await client.call('stats.get')).queues.map((q) => q.name);
  tmux('send-keys', '-t', 'main', '1', 'Home');
  for (let i = 0; i < names.indexOf('reports'); i++) tmux('send-keys', '-t', 'main', 'Down');
  tmux('send-keys', '-t', 'main', 'p');
  await waitFor('the reports queue to be paused', async () => (await client.call('queues.get', { name: 'reports' })).queue.paused, WAIT_MS);
  text = await waitForScreen('main', 'the paused row', (s) => /^reports \(paused\)/m.test(s) && /Paused queue reports/.test(s));
  tmux('send-keys', '-t', 'main', 'p');
  await waitFor('the reports queue to be resumed', async () => !(await client.call('queues.get', { name: 'reports' })).queue.paused, WAIT_MS);

  // Retry the dead job from the failures pane: it runs again and completes.
  tmux('send-keys', '-t', 'main', '3', 'Home', 'r');
  await waitFor('the retried job to complete', async () => (await client.call('jobs.get', { id: deadId })).job.state === 'completed', WAIT_MS);
  await waitForScreen('main', 'the retry said and the failure gone', (s) => /Retried job/.test(s) && /Recent failures \(0\)/.test(s));

  // The running job's output, below, following as lines arrive.
  tmux('send-keys', '-t', 'main', '2', 'Home', 'Enter');
  await waitForScreen('main', 'the output pane', (s) => /Output of \S+ \(builds\/shell, running\)/.test(s) && /^building step 1$/m.test(s));

  // A smaller window lays the screen out again at its width; a wider one gives the title its room.
  tmux('resize-window', '-t', 'main', '-x', '70', '-y', '24');
  text = await waitForScreen('main', 'the layout at 70 columns', (s) => s.trimEnd().split('\n').length <= 24 && /^spool top · .{50,}…$/m.test(s) && /Output of/.test(s));
  assert.ok(text.split('\n').every((line) => line.length <= 70), text);
  tmux('resize-window', '-t', 'main', '-x', '160', '-y', '40');
  await waitForScreen('main', 'the layout at 160 columns', (s) => /^spool top · .* last minute: \d+ completed, \d+ failed$/m.test(s) && s.split('\n').some((line) => line.length > 120));

  // The daemon goes away: top says so and keeps trying; it comes back, and top reads it again.
  await daemon.stop();
  await waitForScreen('main', 'the lost daemon message', (s) => s.includes(`lost the daemon at ${daemon.socketPath}; reconnecting`));
  await daemon.restart();
  client = await daemon.client();
  await waitForScreen('main', 'the daemon read again', (s) => !s.includes('lost the daemon') && /^reports\s+1\s+0\b/m.test(s));

  // q ends it with status 0 and gives the shell its screen back.
  // Esc closes the output (alone: Esc and a key at once read as Alt and that key).
  tmux('send-keys', '-t', 'main', 'Escape');
  await waitForScreen('main', 'the output closed', (s) => !/Output of/.test(s));
  tmux('send-keys', '-t', 'main', 'q');
  text = await waitForScreen('main', 'the shell again', (s) => /spool top exited with \d+/.test(s));
  assert.match(text, /spool top exited with 0/);
  assert.match(text, /the shell before spool top/);
  assert.doesNotMatch(text, /Recent failures|Queues \(/, 'nothing of spool top is left on the screen');
});

test('Ctrl-C ends spool top with status 0 and gives the terminal back, and ? shows the keys', async () => {
  startTop('ctrlc', 100, 30);
  await waitForScreen('ctrlc', 'spool top', (s) => /Queues \(3\)/.test(s));
  tmux('send-keys', '-t', 'ctrlc', '?');
  await waitForScreen('ctrlc', 'the help', (s) => /p\s+pause or resume the selected queue/.test(s) && /samples once a second/.test(s));
  tmux('send-keys', '-t', 'ctrlc', 'C-c');
  const text = await waitForScreen('ctrlc', 'the shell again', (s) => /spool top exited with \d+/.test(s));
  assert.match(text, /spool top exited with 0/);
  assert.doesNotMatch(text, /Queues \(/);
});
