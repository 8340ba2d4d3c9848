/**
 * A job's command never sees the credentials of the process that runs it: `env` in a shell job
 * shows neither the PostgreSQL store's URL with its password, nor libpq's password variables, nor
 * a token or token file, whether the daemon runs it or `spool work --exec` does.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startDaemon } from '../helpers/daemon';
import { PgServer } from '../helpers/postgres';
import { runCli, startCli } from '../integration/cli-run';
import { waitFor } from '../helpers/wait';

const PASSWORD = 'hunter2-in-the-store-url';

const SECRETS = {
  PGPASSWORD: 'pg-password-secret',
  PGPASSFILE: '/secret/pgpass-file',
  PGSSLKEY: '/secret/pg-ssl-key',
  SPOOL_TOKEN: 'spool-token-secret',
  SPOOL_TOKEN_FILE: '/secret/token-file',
};

/** What `env` printed in a shell job, with a check that it did print the job's environment. */
function assertNoSecrets(output: string, secrets: readonly string[]): void {
  assert.match(output, /^SPOOL_JOB_ID=/m, `env ran in the job: ${output}`);
  assert.match(output, /^KEPT_VARIABLE=kept$/m, 'the rest of the environment is inherited');
  for (const secret of secrets) assert.ok(!output.includes(secret), `the job's environment shows ${secret}:\n${output}`);
  for (const name of ['SPOOL_STORE', ...Object.keys(SECRETS)]) assert.doesNotMatch(output, new RegExp(`^${name}=`, 'm'));
}

test("a shell job on a PostgreSQL daemon does not see the store's URL, its password or the daemon's tokens", async (t) => {
  const server = await PgServer.start();
  t.after(() => server.destroy());
  const url = new URL(await server.database());
  url.password = PASSWORD;
  const daemon = await startDaemon({ env: { SPOOL_STORE: url.toString(), KEPT_VARIABLE: 'kept', ...SECRETS } });
  t.after(() => daemon.dispose());
  const run = await runCli(['enqueue', 'envq', '--shell', 'env', '--wait'], { socketPath: daemon.socketPath });
  assert.equal(run.code, 0, run.stderr);
  assertNoSecrets(run.stdout, [PASSWORD, ...Object.values(SECRETS)]);
});

test('a command run by `spool work --exec` does not see the worker\'s token or the variables holding credentials', async (t) => {
  const daemon = await startDaemon();
  t.after(() => daemon.dispose());
  const worker = startCli(['work', 'envwork', '--exec', 'env'], { socketPath: daemon.socketPath, env: { KEPT_VARIABLE: 'kept', ...SECRETS } });
  t.after(() => worker.process.kill('SIGKILL'));
  const client = await daemon.client();
  const { job } = await client.call('jobs.enqueue', { queue: 'envwork', kind: 'report' });
  const done = await waitFor('the job to complete', async () => {
    const current = (await client.call('jobs.get', { id: job.id })).job;
    return current.state === 'completed' || current.state === 'dead' ? current : undefined;
  }, 60_000);
  assert.equal(done.state, 'completed');
  const lines = (await client.call('jobs.output', { id: job.id })).lines.map((line) => line.text).join('\n');
  assertNoSecrets(lines, Object.values(SECRETS));
});
