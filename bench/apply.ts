/**
 * `spool apply` of a jobs file with 1,000 objects (100 queues, 400 templates, 500 schedules), as
 * a person runs it: the built CLI as a process (`--yes`), against a daemon over its socket. The
 * figure is the wall-clock time of the whole command — start-up, reading and checking the file,
 * project.state, the plan, and project.apply's one transaction — first on an empty daemon (every
 * object created), then again (every object unchanged), then after a change to every schedule's
 * cron (500 updates). The target: under 1 s.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { launchDaemon } from './daemon';
import type { BenchFigure } from './figure';

const QUEUES = 100;
const TEMPLATES = 400;
const SCHEDULES = 500;
const TARGET_MS = 1000;

/** The jobs file: every schedule names a template, every template a declared queue. */
export function bigJobsFile(cronMinute: number): string {
  const queues = Array.from({ length: QUEUES }, (_, i) => `"q${i}": { "concurrency": ${(i % 8) + 1}, "rateLimit": "10/s", "timeout": "30s", "retention": "7d" }`);
  const templates = Array.from(
    { length: TEMPLATES },
    (_, i) => `"t${i}": { "queue": "q${i % QUEUES}", "kind": "shell", "command": "echo {{who}} ${i}", "params": { "who": { "default": "world" } }, "tags": ["bench"] }`,
  );
  const schedules = Array.from({ length: SCHEDULES }, (_, i) => `"s${i}": { "cron": "${cronMinute} ${i % 24} * * *", "timezone": "Europe/Paris", "template": "t${i % TEMPLATES}", "params": { "who": "s${i}" } }`);
  return `{\n  "project": "bench",\n  "queues": {\n    ${queues.join(',\n    ')}\n  },\n  "templates": {\n    ${templates.join(',\n    ')}\n  },\n  "schedules": {\n    ${schedules.join(',\n    ')}\n  }\n}\n`;
}

/** Runs `spool apply --yes --file <file>` and resolves with its wall-clock milliseconds. */
function timedApply(cliScript: string, socketPath: string, file: string): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cliScript, 'apply', '--yes', '--file', file], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, SPOOL_SOCKET: socketPath } });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve(performance.now() - started) : reject(new Error(`spool apply exited ${String(code)}:\n${stderr.slice(-2000)}`))));
  });
}

export async function runApplyBench(log: (line: string) => void = (line) => console.log(line)): Promise<BenchFigure[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spool-apply-bench-'));
  const figures: BenchFigure[] = [];
  const report = (name: string, ms: number): void => {
    const met = ms < TARGET_MS;
    figures.push({ name, value: ms, unit: 'ms', target: `< ${TARGET_MS}`, met });
    log(`  ${name.padEnd(58)} ${ms.toFixed(1).padStart(12)} ms  (target < ${TARGET_MS}: ${met ? 'met' : 'MISSED'})`);
  };
  const daemon = await launchDaemon({ daemonScript: path.join(__dirname, 'daemon.js'), dir, name: 'apply' });
  try {
    log(`Jobs as code (spool apply as a process, ${QUEUES + TEMPLATES + SCHEDULES} objects)`);
    const cli = path.join(__dirname, 'cli.js');
    const file = path.join(dir, 'spool.jsonc');
    fs.writeFileSync(file, bigJobsFile(0));
    report('spool apply, 1,000 objects created', await timedApply(cli, daemon.socketPath, file));
    report('spool apply again, 1,000 objects unchanged', await timedApply(cli, daemon.socketPath, file));
    fs.writeFileSync(file, bigJobsFile(30));
    report('spool apply, 500 schedules with a new cron', await timedApply(cli, daemon.socketPath, file));
  } finally {
    await daemon.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return figures;
}
