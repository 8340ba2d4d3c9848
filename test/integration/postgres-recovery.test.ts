/**
 * Recovery of dead daemons' jobs on PostgreSQL, with real daemons (dist/daemon.js --store): the
 * maintenance leader recovers what a daemon killed on this host left running (its shell job's
 * process stopped first, the job run again with its attempt given back) without waiting for the
 * lease; and a daemon on another host, known only by its heartbeat, keeps its job for as long as
 * it beats, however long that is, and loses it only once its heartbeat has gone silent, even
 * after an outage of the database longer than a heartbeat may be silent. A shell job of a daemon
 * dead on another host: its interrupted run says its process may still run there, and a daemon
 * starting on that host again stops what such jobs left (hosts are simulated by the rows a
 * daemon records: another host's daemon and executor, or a dead executor of this host).
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import pg from 'pg';
import { startDaemon, waitFor, type TestDaemon } from '../helpers/daemon';
import { PgServer, daemonsStoppedAfter, failOnDriverWarnings, sharedPostgres } from '../helpers/postgres';

failOnDriverWarnings();

const daemons = daemonsStoppedAfter();

async function daemonOn(url: string, extra: string[] = []): Promise<TestDaemon> {
  const d = await startDaemon({ args: ['--store', url, '--grace', '0', '--kill-after', '500ms', ...extra] });
  daemons.push(d);
  return d;
}

async function sqlClient(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => undefined);
  await client.connect();
  return client;
}

/** Whether the process runs (a zombie, not yet reaped by whatever adopted it, has ended). */
function running(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

interface JobRow {
  state: string;
  worker_id: string | null;
  attempts: number;
}

async function jobRow(sql: pg.Client, id: string): Promise<JobRow> {
  const { rows } = await sql.query<JobRow>('SELECT state, worker_id, attempts FROM jobs WHERE id = $1', [id]);
  const row = rows[0];
  assert.ok(row, `job ${id} exists`);
  return row;
}

test('a daemon killed with its shell job running: the leader stops the job\'s process and runs the job again at once, its attempt given back', async (t) => {
  const url = await (await sharedPostgres()).database();
  const sql = await sqlClient(url);
  t.after(() => sql.end());
  const a = await daemonOn(url);
  const onA = await a.client();
  const dir = fs.mkdtempSync(path.join(a.dir, 'job-'));
  const pids = path.join(dir, 'pids');
  // The first run records its pid and sleeps; the run after recovery finds the marker and ends.
  const command = `echo $$ >> ${pids}; if [ -f ${dir}/ran ]; then exit 0; fi; touch ${dir}/ran; exec sleep 300`;
  const { job } = await onA.call('jobs.enqueue', { queue: 'builds', kind: 'shell', payload: { command }, timeoutMs: 120_000 });
  await waitFor('daemon A\'s executor to run the job', () => fs.existsSync(pids) && fs.readFileSync(pids, 'utf8').trim() !== '', 15_000);
  const firstPid = Number(fs.readFileSync(pids, 'utf8').trim());
  const runningOnA = await jobRow(sql, job.id);
  assert.equal(runningOnA.state, 'running');
  t.after(() => {
    if (running(firstPid)) process.kill(firstPid, 'SIGKILL');
  });

  const b = await daemonOn(url);
  await a.kill();
  const killed = performance.now();
  let done: JobRow | undefined;
  await waitFor('the job to run again on daemon B and complete', async () => {
    done = await jobRow(sql, job.id);
    return done.state === 'completed';
  }, 30_000);
  console.log(`recovered and completed ${Math.round(performance.now() - killed)} ms after its daemon was killed (its lease had two minutes left)`);
  assert.ok(done);
  assert.notEqual(done.worker_id, runningOnA.worker_id, 'another daemon\'s executor ran it');
  assert.equal(done.attempts, 1, 'the interrupted attempt was given back, not counted as a failure');
  assert.equal(running(firstPid), false, 'the process the killed daemon left was stopped before the job ran again');
  // By its cgroup where the daemon may make one per job, else by the /proc scan (SECURITY.md).
  assert.match(b.log(), /Stopped (processes that shell jobs|what shell jobs) of a daemon killed earlier had left running/);
  assert.match(b.log(), /Recovered what daemons that stopped or died on this database left/);
  const { rows } = await sql.query<{ n: string }>('SELECT count(*) AS n FROM daemons');
  assert.equal(Number(rows[0]?.n), 1, 'the dead daemon\'s record is gone; only B is recorded');
});

test('a daemon on another host keeps its job while its heartbeat goes on, and loses it once the heartbeat has been silent', async (t) => {
  const url = await (await sharedPostgres()).database();
  const sql = await sqlClient(url);
  t.after(() => sql.end());
  const b = await daemonOn(url);
  const onB = await b.client();
  // A daemon on another machine, as it records itself; its pid means nothing here. It beats on
  // a connection of its own: on the test's, a beat would queue behind the test's own queries.
  const executor = 'builtin:build-box-2:0123456789ab';
  const far = await sqlClient(url);
  t.after(() => far.end());
  let beating: Promise<unknown> | null = null;
  // One beat at a time: on a busy machine a beat may take longer than the second between two.
  const beat = (): void => {
    beating ??= far.query('UPDATE daemons SET heartbeat_at = $2 WHERE id = $1', ['far-daemon', Date.now()]).catch(() => undefined).finally(() => (beating = null));
  };
  await sql.query(
    `INSERT INTO daemons (id, host, pid, process_start, socket, executor_id, started_at, heartbeat_at, stopped_at)
     VALUES ('far-daemon', 'build-box-2', 1, NULL, '/run/spool/spool.sock', $1, $2, $2, NULL)`,
    [executor, Date.now()],
  );
  // Its executor holds a job (claimed under its id), with a lease far longer than the test.
  const { job } = await onB.call('jobs.enqueue', { queue: 'far', kind: 'far-work', timeoutMs: 600_000 });
  const { jobs } = await onB.call('jobs.claim', { workerId: executor, queues: ['far'], kinds: ['far-work'] });
  assert.equal(jobs[0]?.id, job.id);

  // It beats every second, as a daemon does, through ten renewals of the leader's lease: 15 s,
  // longer than a heartbeat may be silent, and five of the leader's recovery passes.
  const heartbeat = setInterval(beat, 1000);
  t.after(() => clearInterval(heartbeat));
  const renewals = new Set<number>();
  await waitFor('ten renewals of the maintenance lease while the remote daemon beats', async () => {
    const row = await jobRow(sql, job.id);
    assert.equal(row.state, 'running', 'never taken from a daemon that beats');
    assert.equal(row.worker_id, executor);
    const { rows } = await sql.query<{ expires_at: string }>(`SELECT expires_at FROM leaders WHERE role = 'maintenance'`);
    for (const r of rows) renewals.add(Number(r.expires_at));
    return renewals.size >= 10;
  }, 40_000);
  clearInterval(heartbeat);

  // Silent from now on: dead once 10 s have passed, recovered at the leader's next pass.
  const silent = performance.now();
  await waitFor('the silent daemon\'s job to be recovered', async () => (await jobRow(sql, job.id)).state !== 'running', 30_000);
  const waited = performance.now() - silent;
  console.log(`recovered ${Math.round(waited)} ms after the remote daemon's last heartbeat`);
  assert.ok(waited >= 9_000, `recovered only after the heartbeat had been silent long enough (${Math.round(waited)} ms)`);
  const row = await jobRow(sql, job.id);
  assert.equal(row.attempts, 0, 'the attempt was given back');
  assert.ok(row.state === 'retrying' || row.state === 'queued', row.state);
  // The job goes back in one write, and the record goes in the next: wait for that one too.
  await waitFor("the dead daemon's record to be gone", async () => (await sql.query('SELECT id FROM daemons WHERE id = $1', ['far-daemon'])).rows.length === 0, 10_000);
  // The log line comes after the record went, through the daemon's standard error.
  await waitFor('the leader to log what it recovered', () => /build-box-2/.test(b.log()), 10_000);
});

test('after PostgreSQL was down longer than a heartbeat may be silent, the leader takes no job from a daemon that beats again', async (t) => {
  const server = await PgServer.start();
  t.after(() => server.destroy());
  const url = await server.database();
  const b = await startDaemon({ args: ['--store', url], env: { ...process.env, SPOOL_DEBUG: '1' } });
  t.after(() => b.dispose());
  const onB = await b.client();
  const executor = 'builtin:build-box-3:0123456789ab';
  const sql = async (text: string, values: unknown[] = []): Promise<pg.QueryResult> => {
    const client = new pg.Client({ connectionString: url });
    client.on('error', () => undefined);
    await client.connect();
    try {
      return await client.query(text, values);
    } finally {
      await client.end().catch(() => undefined);
    }
  };
  await sql(
    `INSERT INTO daemons (id, host, pid, process_start, socket, executor_id, started_at, heartbeat_at, stopped_at)
     VALUES ('far-daemon', 'build-box-3', 1, NULL, '/run/spool/spool.sock', $1, $2, $2, NULL)`,
    [executor, Date.now()],
  );
  const { job } = await onB.call('jobs.enqueue', { queue: 'far', kind: 'far-work', timeoutMs: 600_000 });
  const { jobs } = await onB.call('jobs.claim', { workerId: executor, queues: ['far'], kinds: ['far-work'] });
  assert.equal(jobs[0]?.id, job.id);
  // The remote daemon beats every second whenever the database answers, as a daemon does.
  let lastBeat = Date.now();
  let beating = true;
  const heartbeat = setInterval(() => {
    if (!beating) return;
    sql('UPDATE daemons SET heartbeat_at = $2 WHERE id = $1', ['far-daemon', Date.now()]).then(
      () => (lastBeat = Date.now()),
      () => undefined,
    );
  }, 1000);
  t.after(() => clearInterval(heartbeat));

  server.stopImmediate();
  beating = false;
  // Down for longer than a heartbeat may be silent: when it is back, every daemon's last
  // heartbeat (the remote one's, and the leader's own) is older than that.
  await waitFor('the outage to outlast the 10 s a heartbeat may be silent', () => Date.now() - lastBeat > 11_000 && /debug Could not record the daemon as alive/.test(b.log()), 30_000);
  await server.startAgain();

  const renewals = new Set<number>();
  // The remote daemon reconnects later than the leader (its own backoff, a slower network): the
  // leader leads again and looks for dead daemons while that one's heartbeat is still old.
  await waitFor('the leader to lead again for a few renewals', async () => {
    const { rows } = await sql(`SELECT expires_at FROM leaders WHERE role = 'maintenance' AND expires_at > $1`, [Date.now()]).catch(() => ({ rows: [] }));
    for (const r of rows as { expires_at: string }[]) renewals.add(Number(r.expires_at));
    return renewals.size >= 4;
  }, 30_000);
  beating = true;
  renewals.clear();
  await waitFor('ten renewals of the maintenance lease after the outage', async () => {
    try {
      const { rows } = await sql(`SELECT j.state, j.worker_id, l.expires_at FROM jobs j LEFT JOIN leaders l ON l.role = 'maintenance' WHERE j.id = $1`, [job.id]);
      const row = rows[0] as { state: string; worker_id: string; expires_at: string | null } | undefined;
      assert.equal(row?.state, 'running', 'never taken from a daemon that beats again');
      assert.equal(row?.worker_id, executor);
      if (row?.expires_at != null) renewals.add(Number(row.expires_at));
    } catch (error) {
      if (error instanceof assert.AssertionError) throw error;
      return false;
    }
    return renewals.size >= 10;
  }, 60_000);
  assert.doesNotMatch(b.log(), /Recovered what daemons that stopped or died/);
});

test('a shell job of a daemon dead on another host: its run says the process may still be running there, under that daemon\'s pid', async (t) => {
  const url = await (await sharedPostgres()).database();
  const sql = await sqlClient(url);
  t.after(() => sql.end());
  // One executor slot, kept busy: the leader's own executor takes no shell job from the test.
  const b = await daemonOn(url, ['--max-executors', '1']);
  const onB = await b.client();
  const { job: busy } = await onB.call('jobs.enqueue', { queue: 'busy', kind: 'shell', payload: { command: 'exec sleep 300' }, timeoutMs: 600_000 });
  await waitFor('the leader\'s executor to be busy', async () => (await jobRow(sql, busy.id)).state === 'running', 15_000);
  const executor = 'builtin:build-box-4:0123456789ab';
  await sql.query(
    `INSERT INTO daemons (id, host, pid, process_start, socket, executor_id, started_at, heartbeat_at, stopped_at)
     VALUES ('far-shell-daemon', 'build-box-4', 4242, NULL, '/run/spool/spool.sock', $1, $2, $2, NULL)`,
    [executor, Date.now()],
  );
  // Its executor runs a shell job. Built-in kinds are claimed only by a daemon's own executors,
  // never over the socket: the test claims the job under another kind, then records it as the
  // shell job that executor would have claimed.
  const { job } = await onB.call('jobs.enqueue', { queue: 'far-shell', kind: 'far-build', payload: { command: 'exit 0' }, timeoutMs: 600_000 });
  const { jobs } = await onB.call('jobs.claim', { workerId: executor, queues: ['far-shell'], kinds: ['far-build'] });
  assert.equal(jobs[0]?.id, job.id);
  await sql.query(`UPDATE jobs SET kind = 'shell' WHERE id = $1`, [job.id]);
  // It never beats: dead once its heartbeat has been silent for 10 s, recovered at the next pass.
  await waitFor('the silent daemon\'s shell job to be recovered', async () => (await jobRow(sql, job.id)).state !== 'running', 40_000);
  const { runs } = await onB.call('jobs.get', { id: job.id });
  const run = runs.find((r) => r.outcome === 'interrupted');
  assert.ok(run, JSON.stringify(runs));
  assert.equal(
    run.error,
    'the daemon on host build-box-4 (pid 4242) stopped answering while the job ran; its process may still be running on host build-box-4, under that daemon (pid 4242), until a daemon starts there again and stops it',
  );
  const output = await onB.call('jobs.output', { id: job.id });
  assert.ok(output.lines.some((l) => l.text.includes('its process may still be running on host build-box-4')), JSON.stringify(output.lines));
});

test('a daemon starting on a host stops what shell jobs of a dead daemon there left running after another daemon recovered them; another store\'s jobs are left alone', async (t) => {
  const url = await (await sharedPostgres()).database();
  const sql = await sqlClient(url);
  t.after(() => sql.end());
  // The job, recovered meanwhile by a daemon elsewhere: retrying here, nobody runs it.
  const first = await daemonOn(url);
  const { job } = await (await first.client()).call('jobs.enqueue', { queue: 'gone-host', kind: 'resize' });
  await first.stop();
  // The executor of a daemon that ran on this host and is dead (its pid has exited).
  const deadPid = spawnSync('true').pid;
  assert.ok(deadPid);
  const executor = 'builtin:this-host-before:feedfacefeed';
  await sql.query(
    `INSERT INTO workers (id, type, name, host, pid, started_at, last_heartbeat_at, alive) VALUES ($1, 'builtin', 'built-in executors', $2, $3, $4, $4, 0)`,
    [executor, os.hostname(), deadPid, Date.now() - 60_000],
  );
  // What its shell job left: a process group of its own, carrying the job's and the executor's ids;
  // and one of another store's job (an id this database does not know) under the same executor id.
  const leftover = (jobId: string): number => {
    const child = spawn('sh', ['-c', 'sleep 300 & wait'], { detached: true, stdio: 'ignore', env: { ...process.env, SPOOL_JOB_ID: jobId, SPOOL_WORKER_ID: executor } });
    child.unref();
    assert.ok(child.pid);
    return child.pid;
  };
  const left = leftover(job.id);
  const otherStore = leftover('0193ffff-ffff-7fff-bfff-ffffffffffff');
  t.after(() => {
    for (const pid of [left, otherStore]) {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // Gone already.
      }
    }
  });
  await waitFor('the leftovers to run', () => running(left) && running(otherStore), 10_000);

  const back = await daemonOn(url);
  await waitFor('the leftover to be stopped', () => !running(left), 15_000);
  assert.match(back.log(), new RegExp(`Stopped processes that shell jobs of a daemon on this host had left running; their jobs had been recovered by another daemon meanwhile.*${job.id}`));
  assert.equal(running(otherStore), true, 'another store\'s job is not this daemon\'s to stop');
});
