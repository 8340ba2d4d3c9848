/**
 * A revoked token stops working everywhere: real daemons with `--listen` (TLS on 127.0.0.1), on
 * SQLite and on one real PostgreSQL database shared by several daemons.
 *
 * - A session on another daemon of the same database closes within about a second of the revoke
 *   (the revoking daemon's notice), and so does one on a daemon that hears no notices (poll-only
 *   mode: the once-a-second re-check of the sessions against the stored tokens).
 * - Logins racing a revoke do not survive it: 40 connections log in over and over with a fresh
 *   token while it is revoked; no login that succeeded still works once the revoke is
 *   acknowledged by the daemon it was made on, and those on another daemon close within about a
 *   second.
 * - A worker whose token is revoked stops with the reason (the worker library's `done` rejects;
 *   `spool work` exits non-zero saying so) instead of trying to log in again forever.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, test } from 'node:test';
import { SpoolClient } from '../../shared/client/client';
import { runWorker } from '../../shared/client/worker';
import { ErrorCode } from '../../shared/protocol';
import { startDaemon, waitFor, type TestDaemon } from '../helpers/daemon';
import { sharedPostgres } from '../helpers/postgres';
import { startCli, stopCli } from '../integration/cli-run';

const daemons: TestDaemon[] = [];
after(async () => {
  await Promise.all(daemons.map((d) => d.dispose()));
});

/** "About a second": the notice is immediate, the re-check runs every second; room for a busy machine. */
const ABOUT_A_SECOND_MS = 2500;

interface Listening {
  daemon: TestDaemon;
  local: SpoolClient;
  port: number;
  fingerprint: string;
}

async function listening(args: string[] = []): Promise<Listening> {
  const daemon = await startDaemon({ args: ['--listen', '127.0.0.1:0', ...args] });
  daemons.push(daemon);
  const local = await daemon.client();
  const status = await local.call('daemon.status');
  assert.ok(status.listen !== undefined && status.tlsFingerprint !== undefined);
  return { daemon, local, port: Number(status.listen.split(':').pop()), fingerprint: status.tlsFingerprint };
}

function remote(d: Listening, token: string): Promise<SpoolClient> {
  return SpoolClient.connect({ tls: { host: '127.0.0.1', port: d.port, token, fingerprint: d.fingerprint }, connectTimeoutMs: 20_000, requestTimeoutMs: 20_000 });
}

/** Resolves when the client's connection closes. */
function closedPromise(client: SpoolClient): Promise<void> {
  return new Promise((resolve) => client.onClose(() => resolve()));
}

test('PostgreSQL: a token revoked on one daemon closes its sessions on the others within about a second, with or without notices', async (t) => {
  const url = await (await sharedPostgres()).database(t);
  const a = await listening(['--store', url]);
  const b = await listening(['--store', url]);
  // Poll-only: no LISTEN, so no notice reaches it; only its re-check can close the session.
  const c = await listening(['--store', url, '--store-poll']);
  const { token } = await a.local.call('tokens.create', { name: 'team-admin', scope: 'admin' });
  const onB = await remote(b, token);
  const onC = await remote(c, token);
  t.after(() => {
    onB.close();
    onC.close();
  });
  await onB.call('queues.configure', { name: 'guarded', concurrency: 2 });
  await onC.call('queues.list');
  const closedB = closedPromise(onB);
  const closedC = closedPromise(onC);

  const revoked = performance.now();
  await a.local.call('tokens.revoke', { name: 'team-admin' });
  const within = (p: Promise<void>): Promise<number> =>
    Promise.race([p.then(() => performance.now() - revoked), new Promise<number>((resolve) => setTimeout(() => resolve(Infinity), ABOUT_A_SECOND_MS).unref())]);
  const [msB, msC] = await Promise.all([within(closedB), within(closedC)]);
  console.log(`session closed on the listening daemon after ${Math.round(msB)} ms, on the poll-only daemon after ${Math.round(msC)} ms`);
  assert.ok(msB < ABOUT_A_SECOND_MS, 'the session on the daemon that heard the notice closed');
  assert.ok(msC < ABOUT_A_SECOND_MS, "the session on the daemon that hears no notices closed by the daemon's re-check");
  await assert.rejects(onB.call('queues.configure', { name: 'guarded', concurrency: 8 }));
  const queue = (await a.local.call('queues.list')).queues.find((q) => q.name === 'guarded');
  assert.equal(queue?.concurrency, 2, 'nothing the revoked token sent later took effect');
  // And a new login with it is refused everywhere.
  for (const d of [a, b, c]) await assert.rejects(remote(d, token), /not known to this daemon/);
});

/**
 * 40 loops log in with `token` on the given daemons (round robin) until the revoke is
 * acknowledged; returns the clients whose login succeeded, by daemon, and the revoke's
 * acknowledgement (the revoke is sent once `startAfter` logins have succeeded).
 */
async function raceLogins(
  targets: Listening[],
  token: string,
  revoke: () => Promise<unknown>,
  startAfter = 40,
): Promise<{ logins: { client: SpoolClient; closed: Promise<void>; on: number }[]; refused: number }> {
  const logins: { client: SpoolClient; closed: Promise<void>; on: number }[] = [];
  let acknowledged = false;
  let refused = 0;
  const loops = Array.from({ length: 40 }, async (_, i) => {
    const on = i % targets.length;
    const d = targets[on] as Listening;
    while (!acknowledged) {
      try {
        const client = await remote(d, token);
        logins.push({ client, closed: closedPromise(client), on });
      } catch {
        refused += 1;
      }
    }
  });
  await waitFor(`${startAfter} logins before the revoke`, () => logins.length >= startAfter, 60_000);
  await revoke();
  acknowledged = true;
  await Promise.all(loops);
  return { logins, refused };
}

/**
 * Every login made on the daemon that revoked no longer works: a call on it made after the
 * revoke was acknowledged fails (its connection was closed before the acknowledgement).
 */
async function assertNoneWorks(logins: { client: SpoolClient }[]): Promise<void> {
  const outcomes = await Promise.allSettled(logins.map(({ client }) => client.call('queues.list', {}, { timeoutMs: 10_000 })));
  const working = outcomes.filter((o) => o.status === 'fulfilled').length;
  assert.equal(working, 0, `${working} of ${logins.length} logins still worked after the revoke was acknowledged`);
}

test('SQLite: 40 connections logging in while the token is revoked: no login survives the revoke', async (t) => {
  const d = await listening();
  const { token } = await d.local.call('tokens.create', { name: 'racing', scope: 'admin' });
  const { logins, refused } = await raceLogins([d], token, () => d.local.call('tokens.revoke', { name: 'racing' }));
  t.after(() => {
    for (const { client } of logins) client.close();
  });
  console.log(`SQLite: ${logins.length} logins succeeded, ${refused} refused`);
  await assertNoneWorks(logins);
});

test('PostgreSQL: 40 connections logging in on two daemons while the token is revoked on one: none survives', async (t) => {
  const url = await (await sharedPostgres()).database(t);
  const a = await listening(['--store', url]);
  const b = await listening(['--store', url]);
  const { token } = await a.local.call('tokens.create', { name: 'racing', scope: 'admin' });
  const { logins, refused } = await raceLogins([a, b], token, () => a.local.call('tokens.revoke', { name: 'racing' }));
  t.after(() => {
    for (const { client } of logins) client.close();
  });
  console.log(`PostgreSQL: ${logins.length} logins succeeded (${logins.filter((l) => l.on === 0).length} on the revoking daemon), ${refused} refused`);
  // On the daemon that revoked: closed before the acknowledgement.
  await assertNoneWorks(logins.filter((l) => l.on === 0));
  // On the other: closed within about a second.
  const others = logins.filter((l) => l.on === 1);
  const deadline = new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), ABOUT_A_SECOND_MS).unref());
  const late = await Promise.race([Promise.all(others.map((l) => l.closed)).then(() => 'closed' as const), deadline]);
  assert.equal(late, 'closed', 'every session on the other daemon closed within about a second');
  await assertNoneWorks(others);
});

test('a worker whose token is revoked stops with the reason instead of reconnecting forever (library and spool work)', async (t) => {
  const d = await listening();
  const { token } = await d.local.call('tokens.create', { name: 'revoked-worker', scope: 'worker' });
  const worker = await runWorker({
    tls: { host: '127.0.0.1', port: d.port, token, fingerprint: d.fingerprint },
    queues: ['revoked'],
    handler: () => null,
  });
  t.after(() => worker.stop().catch(() => undefined));

  const tokenFile = path.join(d.daemon.dir, 'worker.token');
  fs.writeFileSync(tokenFile, (await d.local.call('tokens.create', { name: 'revoked-cli', scope: 'worker' })).token, { mode: 0o600 });
  const endpoint = `tls://127.0.0.1:${d.port}`;
  const cli = startCli(['--endpoint', endpoint, '--tls-fingerprint', d.fingerprint, '--token-file', tokenFile, 'work', 'revoked', '--exec', 'true'], {
    socketPath: path.join(d.daemon.dir, 'nothing.sock'),
  });
  t.after(() => stopCli(cli));
  await waitFor('spool work to be taking jobs', () => /is taking jobs from revoked/.test(cli.stderr()));

  await d.local.call('tokens.revoke', { name: 'revoked-worker' });
  await d.local.call('tokens.revoke', { name: 'revoked-cli' });
  const refusal = await worker.done.then(
    () => assert.fail('the worker stopped as if asked to'),
    (error: unknown) => error as { code?: number; message?: string },
  );
  assert.equal(refusal.code, ErrorCode.Unauthorized);
  assert.match(refusal.message ?? '', /not known to this daemon \(wrong, or revoked\)/);

  const exited = await Promise.race([cli.exited, new Promise<null>((resolve) => setTimeout(() => resolve(null), 20_000).unref())]);
  assert.ok(exited !== null, `spool work still runs after its token was revoked: ${cli.stderr()}`);
  assert.equal(exited.code, 1);
  assert.match(exited.stderr, /spool: the daemon refused this worker's token when it reconnected, so the worker stopped\. Unauthorized: the token is not known/);
  // One refused login each, not one per retry.
  const refused = d.daemon.log().split('\n').filter((line) => /Refused a login with a wrong token/.test(line)).length;
  assert.ok(refused <= 2, `${refused} refused logins logged`);
});
