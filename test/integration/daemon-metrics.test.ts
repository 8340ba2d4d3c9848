/**
 * `--metrics HOST:PORT`: a real daemon serves Prometheus text at /metrics. Jobs are enqueued,
 * completed, failed and cancelled by the daemon's own shell executor and by a worker over the
 * socket, then the exposition is parsed (not grepped) and its counters, gauges and histograms
 * checked by queue, state and kind. Other paths get 404, a non-loopback address is refused
 * without --metrics-allow-remote, and the endpoint closes with the daemon.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { EnqueueParams } from '../../shared/protocol';
import { DAEMON_SCRIPT, startDaemon, waitFor, type TestDaemon } from '../helpers/daemon';
import { runCli } from './cli-run';

/** One sample line of the exposition: `name{label="value",…} value`. */
interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

interface Exposition {
  samples: Sample[];
  /** `# TYPE name type` lines: each metric family and its type. */
  types: Map<string, string>;
}

/**
 * Prometheus's text format, version 0.0.4: comment lines (`# HELP`, `# TYPE`), blank lines, and
 * samples whose label values may hold escaped `\\`, `\"` and `\n`. Anything else fails the test.
 */
function parseExposition(text: string): Exposition {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    if (line.startsWith('#')) {
      const type = /^# TYPE (\S+) (counter|gauge|histogram|summary|untyped)$/.exec(line);
      if (type) types.set(type[1], type[2]);
      continue;
    }
    const head = /^([a-zA-Z_:][a-zA-Z0-9_:]*)/.exec(line);
    assert.ok(head, `a sample line starts with a metric name: ${line}`);
    const name = head[1];
    let at = name.length;
    const labels: Record<string, string> = {};
    if (line[at] === '{') {
      at++;
      while (line[at] !== '}') {
        const label = /^([a-zA-Z_][a-zA-Z0-9_]*)="/.exec(line.slice(at));
        assert.ok(label, `a label at column ${at}: ${line}`);
        at += label[0].length;
        let value = '';
        for (; line[at] !== '"'; at++) {
          assert.ok(at < line.length, `an unterminated label value: ${line}`);
          if (line[at] === '\\') {
            at++;
            value += line[at] === 'n' ? '\n' : line[at];
          } else value += line[at];
        }
        labels[label[1]] = value;
        at++;
        if (line[at] === ',') at++;
      }
      at++;
    }
    const rest = line.slice(at).trim().split(/\s+/);
    assert.ok(rest.length === 1 || rest.length === 2, `a value (and maybe a timestamp) after the labels: ${line}`);
    const value = rest[0] === '+Inf' ? Infinity : rest[0] === '-Inf' ? -Infinity : Number(rest[0]);
    assert.ok(!Number.isNaN(value) || rest[0] === 'NaN', `a number: ${line}`);
    samples.push({ name, labels, value });
  }
  return { samples, types };
}

/** The samples named `name` whose labels include every one of `labels`. */
function find(exposition: Exposition, name: string, labels: Record<string, string> = {}): Sample[] {
  return exposition.samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
}

/** The value of the one sample named `name` with exactly these labels (besides `daemon`); 0 when there is none. */
function valueOf(exposition: Exposition, name: string, labels: Record<string, string> = {}): number {
  const matches = find(exposition, name, labels).filter((s) => Object.keys(s.labels).length === Object.keys(labels).length + 1);
  assert.ok(matches.length <= 1, `at most one ${name} sample for ${JSON.stringify(labels)}`);
  return matches[0]?.value ?? 0;
}

function get(port: number, urlPath: string, agent?: http.Agent): Promise<{ status: number; contentType: string; body: string }> {
  return new Promise((resolve, reject) => {
    const request = http.get({ host: '127.0.0.1', port, path: urlPath, agent }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, contentType: String(response.headers['content-type']), body }));
    });
    request.on('error', reject);
  });
}

async function scrape(port: number): Promise<Exposition> {
  const response = await get(port, '/metrics');
  assert.equal(response.status, 200, response.body);
  return parseExposition(response.body);
}

/** A port nobody listens on right now (the system's choice, released at once). */
async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  assert.ok(address !== null && typeof address === 'object');
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return address.port;
}

/** Resolves with the error code once connecting to the port fails (ECONNREFUSED when nothing listens). */
function connectError(port: number): Promise<string | null> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(null);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

describe('the metrics endpoint', () => {
  let daemon: TestDaemon;
  let port: number;
  before(async () => {
    port = await freePort();
    daemon = await startDaemon({ args: ['--metrics', `127.0.0.1:${port}`, '--name', 'metrics-test'] });
  });
  after(() => daemon.dispose());

  test('counts jobs by queue, state and kind, times claims and runs, and counts connected clients and workers', async () => {
    const producer = await daemon.client();
    const worker = await daemon.client();

    // The daemon's own executor: two successes, one job failing both its attempts, one cancelled while it runs.
    const shell = (command: string, extra: Partial<EnqueueParams> = {}) =>
      producer.call('jobs.enqueue', { queue: 'builds', kind: 'shell', payload: { command }, ...extra });
    await shell('true');
    await shell('true');
    await shell('false', { maxAttempts: 2, backoff: { strategy: 'fixed', baseMs: 50, capMs: 50, jitter: 0 } });
    const { job: sleeper } = await shell('sleep 30');
    await waitFor('the sleeping job to run', async () => (await producer.call('jobs.get', { id: sleeper.id })).job.state === 'running');
    await producer.call('jobs.cancel', { id: sleeper.id });

    // A worker over the socket: one job completed, one failed for good, one left waiting.
    await worker.call('workers.register', { workerId: 'mailer', queues: ['remote'] });
    for (let i = 0; i < 3; i++) await producer.call('jobs.enqueue', { queue: 'remote', kind: 'email', payload: { i }, maxAttempts: 1 });
    const claimedAt = Date.now();
    const [first] = (await worker.call('jobs.claim', { workerId: 'mailer', queues: ['remote'] })).jobs;
    await worker.call('jobs.complete', { id: first.id, workerId: 'mailer', result: { sent: true } });
    const completedAt = Date.now();
    const [second] = (await worker.call('jobs.claim', { workerId: 'mailer', queues: ['remote'] })).jobs;
    await worker.call('jobs.fail', { id: second.id, workerId: 'mailer', error: 'mailbox full' });

    // A delayed job: its wait before it was due is not claim latency.
    const { job: delayed } = await producer.call('jobs.enqueue', { queue: 'later', kind: 'report', delayMs: 400 });
    const [late] = (await worker.call('jobs.claim', { workerId: 'mailer', queues: ['later'], waitMs: 20_000 })).jobs;
    const lateClaimedAt = Date.now();
    assert.equal(late.id, delayed.id);
    await worker.call('jobs.complete', { id: late.id, workerId: 'mailer' });

    const m = await waitFor('the shell jobs to settle', async () => {
      const scraped = await scrape(port);
      const settled =
        valueOf(scraped, 'spool_jobs', { queue: 'builds', state: 'completed' }) === 2 &&
        valueOf(scraped, 'spool_jobs', { queue: 'builds', state: 'dead' }) === 1 &&
        valueOf(scraped, 'spool_jobs', { queue: 'builds', state: 'cancelled' }) === 1;
      return settled ? scraped : false;
    });

    assert.ok(m.samples.length > 0);
    for (const sample of m.samples) assert.equal(sample.labels.daemon, 'metrics-test', `${sample.name} carries the daemon's name`);
    assert.equal(m.types.get('spool_jobs'), 'gauge');
    assert.equal(m.types.get('spool_jobs_enqueued_total'), 'counter');
    assert.equal(m.types.get('spool_job_run_duration_seconds'), 'histogram');
    assert.equal(m.types.get('spool_store_errors_total'), 'counter');

    // Jobs by queue and state, from the store.
    const states = (queue: string) => Object.fromEntries(find(m, 'spool_jobs', { queue }).map((s) => [s.labels.state, s.value]));
    assert.deepEqual(states('builds'), { blocked: 0, queued: 0, running: 0, retrying: 0, held: 0, completed: 2, dead: 1, cancelled: 1 });
    assert.deepEqual(states('remote'), { blocked: 0, queued: 1, running: 0, retrying: 0, held: 0, completed: 1, dead: 1, cancelled: 0 });
    assert.deepEqual(states('later'), { blocked: 0, queued: 0, running: 0, retrying: 0, held: 0, completed: 1, dead: 0, cancelled: 0 });

    // Counters by queue and kind, from the engine's events.
    const builds = { queue: 'builds', kind: 'shell' };
    const remote = { queue: 'remote', kind: 'email' };
    assert.equal(valueOf(m, 'spool_jobs_enqueued_total', builds), 4);
    assert.equal(valueOf(m, 'spool_jobs_enqueued_total', remote), 3);
    assert.equal(valueOf(m, 'spool_jobs_enqueued_total', { queue: 'later', kind: 'report' }), 1);
    assert.equal(valueOf(m, 'spool_jobs_completed_total', builds), 2);
    assert.equal(valueOf(m, 'spool_jobs_completed_total', remote), 1);
    assert.equal(valueOf(m, 'spool_jobs_failed_total', builds), 2, 'both attempts of the failing shell job');
    assert.equal(valueOf(m, 'spool_jobs_failed_total', remote), 1);
    assert.equal(valueOf(m, 'spool_jobs_dead_total', builds), 1);
    assert.equal(valueOf(m, 'spool_jobs_dead_total', remote), 1);
    assert.deepEqual(find(m, 'spool_store_errors_total'), [], 'no store operation failed');

    // Claim-to-start: one observation per attempt started (2 + 2 + 1 shell attempts, 2 claims).
    assert.equal(valueOf(m, 'spool_job_claim_to_start_seconds_count', builds), 5);
    assert.equal(valueOf(m, 'spool_job_claim_to_start_seconds_count', remote), 2);
    const lateWait = valueOf(m, 'spool_job_claim_to_start_seconds_sum', { queue: 'later', kind: 'report' });
    assert.ok(lateWait <= (lateClaimedAt - delayed.runAt + 1) / 1000, `measured from the due time, not the enqueue (${lateWait} s)`);
    for (const labels of [builds, remote]) {
      const buckets = find(m, 'spool_job_claim_to_start_seconds_bucket', labels);
      assert.ok(buckets.length > 2);
      const counts = buckets.map((b) => b.value);
      assert.deepEqual(counts, [...counts].sort((a, b) => a - b), 'buckets are cumulative');
      assert.equal(buckets.find((b) => b.labels.le === '+Inf')?.value, valueOf(m, 'spool_job_claim_to_start_seconds_count', labels));
    }

    // Run durations by outcome: the state each attempt ended in.
    const runs = (labels: Record<string, string>, outcome: string) => valueOf(m, 'spool_job_run_duration_seconds_count', { ...labels, outcome });
    assert.equal(runs(builds, 'completed'), 2);
    assert.equal(runs(builds, 'retrying'), 1);
    assert.equal(runs(builds, 'dead'), 1);
    assert.equal(runs(builds, 'cancelled'), 1);
    assert.equal(runs(remote, 'completed'), 1);
    assert.equal(runs(remote, 'dead'), 1);
    const mailed = valueOf(m, 'spool_job_run_duration_seconds_sum', { ...remote, outcome: 'completed' });
    assert.ok(mailed >= 0 && mailed <= (completedAt - claimedAt + 1) / 1000, `from claim to complete (${mailed} s, at most ${completedAt - claimedAt} ms)`);

    // Connections: the producer and the worker (and the scrape itself is no client).
    assert.ok(valueOf(m, 'spool_connected_clients') >= 2);
    assert.equal(valueOf(m, 'spool_connected_workers'), 1, 'the worker mailer (the daemon’s own executors are not counted)');
    worker.close();
    await waitFor('the worker to count as disconnected', async () => valueOf(await scrape(port), 'spool_connected_workers') === 0);
  });

  test('serves only /metrics: every other path is 404', async () => {
    for (const other of ['/', '/metrics/extra', '/favicon.ico', '/stats']) {
      const response = await get(port, other);
      assert.equal(response.status, 404, other);
    }
    const metrics = await get(port, '/metrics?x=1');
    assert.equal(metrics.status, 200);
    assert.match(metrics.contentType, /^text\/plain; version=0\.0\.4/);
  });
});

test('the endpoint closes with the daemon, even with a scraper holding a connection open', async (t) => {
  const port = await freePort();
  const daemon = await startDaemon({ args: ['--metrics', `127.0.0.1:${port}`] });
  t.after(() => daemon.dispose());
  const agent = new http.Agent({ keepAlive: true });
  t.after(() => agent.destroy());
  const scraped = parseExposition((await get(port, '/metrics', agent)).body);
  assert.equal(valueOf(scraped, 'spool_connected_workers'), 0);
  assert.equal(find(scraped, 'spool_connected_workers')[0]?.labels.daemon, os.hostname(), 'named after the host by default');
  await daemon.stop();
  assert.match(daemon.log(), /Spool daemon stopped/);
  assert.equal(await connectError(port), 'ECONNREFUSED');
});

test('spool daemon --metrics starts a daemon that serves them, under its --name', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spool-metrics-'));
  const socketPath = path.join(dir, 'spool.sock');
  t.after(async () => {
    await runCli(['daemon', 'stop'], { socketPath });
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const port = await freePort();
  const started = await runCli(['daemon', '--detach', '--db', path.join(dir, 'db.sqlite'), '--metrics', `127.0.0.1:${port}`, '--name', 'build-box'], { socketPath });
  assert.equal(started.code, 0, started.stderr);
  const scraped = await scrape(port);
  assert.ok(find(scraped, 'spool_connected_clients').every((s) => s.labels.daemon === 'build-box'));
  assert.equal(find(scraped, 'spool_connected_clients').length, 1);
  const stopped = await runCli(['daemon', 'stop'], { socketPath });
  assert.equal(stopped.code, 0, stopped.stderr);
  assert.equal(await connectError(port), 'ECONNREFUSED');
});

test('a non-loopback address is refused without --metrics-allow-remote, and a malformed one names the form', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spool-metrics-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const port = await freePort();
  const run = (address: string) =>
    spawnSync(process.execPath, [DAEMON_SCRIPT, '--socket', path.join(dir, 'spool.sock'), '--db', path.join(dir, 'db'), '--metrics', address], { encoding: 'utf8', timeout: 30_000 });
  const open = run(`0.0.0.0:${port}`);
  assert.equal(open.status, 1);
  assert.match(open.stderr, /0\.0\.0\.0 is not a loopback address.*--metrics-allow-remote/);
  assert.equal(fs.existsSync(path.join(dir, 'db')), false, 'refused before the database was opened');
  assert.equal(await connectError(port), 'ECONNREFUSED');
  const malformed = run('9464');
  assert.equal(malformed.status, 1);
  assert.match(malformed.stderr, /--metrics must be HOST:PORT/);
});

test('a metrics port already taken fails the start, naming the address, and leaves no socket behind', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spool-metrics-'));
  const taken = net.createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  t.after(() => {
    taken.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const address = taken.address();
  assert.ok(address !== null && typeof address === 'object');
  const socketPath = path.join(dir, 'spool.sock');
  const result = spawnSync(process.execPath, [DAEMON_SCRIPT, '--socket', socketPath, '--db', path.join(dir, 'db'), '--metrics', `127.0.0.1:${address.port}`], {
    encoding: 'utf8',
    timeout: 30_000,
  });
  assert.equal(result.status, 1);
  assert.match(result.stderr, new RegExp(`Cannot serve metrics on 127\\.0\\.0\\.1:${address.port}: .*EADDRINUSE`));
  assert.equal(fs.existsSync(socketPath), false);
});
