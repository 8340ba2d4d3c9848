// `npm run demo`: Spool in thirty seconds, on a fresh clone after `npm install`.
//   1. Starts the daemon in the background if none answers at the default socket, and says
//      where its socket, database and log are.
//   2. Enqueues a sample shell job and waits for it, showing its output as it runs.
//   3. Prints three commands to try next, and how to stop the daemon.
// It runs the built CLI (dist/cli.js through bin/spool); `npm run demo` builds first.
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = fileURLToPath(new URL('../bin/spool', import.meta.url));
const spool = (args, options = {}) => spawnSync(process.execPath, [bin, ...args], { cwd: root, encoding: 'utf8', ...options });
const say = (text) => process.stdout.write(text + '\n');
const bold = (s) => (process.stdout.isTTY && !process.env.NO_COLOR ? `\x1b[1m${s}\x1b[22m` : s);

function fail(what, result) {
  process.stderr.write(`demo: ${what}\n${result.stderr ?? ''}${result.stdout ?? ''}`);
  process.exit(1);
}

say(bold('1. The daemon'));
const status = spool(['daemon', 'status', '--json']);
if (status.status === 0) {
  const s = JSON.parse(status.stdout);
  say(`A Spool daemon is already running (pid ${s.pid}).`);
  say(`  socket:   ${s.socketPath}\n  database: ${s.dbPath}`);
} else {
  const started = spool(['daemon', '--detach']);
  if (started.status !== 0) fail('could not start the daemon:', started);
  process.stdout.write(started.stdout);
}

say('\n' + bold('2. A sample job'));
const command = 'echo "Hello from Spool, running in $(pwd)"; for i in 1 2 3; do echo "step $i of 3"; sleep 0.2; done; echo "done"';
say(`spool enqueue demo --shell '${command}' --wait\n`);
const waited = spawn(process.execPath, [bin, 'enqueue', 'demo', '--shell', command, '--wait'], {
  cwd: root,
  stdio: ['ignore', 'inherit', 'pipe'],
});
let jobId = '';
waited.stderr.setEncoding('utf8');
waited.stderr.on('data', (text) => {
  jobId ||= /Enqueued (\S+)/.exec(text)?.[1] ?? '';
  process.stderr.write(text);
});
const code = await new Promise((resolve) => waited.once('close', resolve));
if (code !== 0) {
  process.stderr.write(`demo: the sample job did not complete (exit status ${code}). See \`node bin/spool job ${jobId || '<id>'}\`.\n`);
  process.exit(1);
}

say('\n' + bold('3. Next'));
say('Try (or install it, `npm pack && npm install -g ./spool-*.tgz`, to call it plain `spool`):');
const next = [
  ['node bin/spool jobs', 'list jobs, newest first'],
  [`node bin/spool job ${jobId || '<id>'}`, "the job's record and its runs"],
  ['node bin/spool stats --watch', 'live counts per queue (Ctrl-C to leave)'],
];
const width = Math.max(...next.map(([c]) => c.length));
for (const [c, what] of next) say(`  ${c.padEnd(width)}   ${what}`);
say('\nStop the daemon with:');
say('  node bin/spool daemon stop');
