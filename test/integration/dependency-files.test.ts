/**
 * A shell job's dependency file (SPOOL_DEPENDENCIES) lives in the daemon's own folder beside its
 * socket, not in the system's temporary folder, and what a daemon killed mid-job left there is
 * removed when it starts again.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { dependencyFolders } from '../../shared/client/jobEnv';
import { startDaemon, waitFor } from '../helpers/daemon';

test('a daemon killed mid-job leaves its dependency folder behind, and its next start removes it', async (t) => {
  const daemon = await startDaemon();
  t.after(() => daemon.dispose());
  const client = await daemon.client();
  const folder = dependencyFolders(daemon.socketPath);
  const { job: first } = await client.call('jobs.enqueue', { queue: 'deps', kind: 'shell', payload: 'echo done' });
  const { job } = await client.call('jobs.enqueue', { queue: 'deps', kind: 'shell', payload: 'cat "$SPOOL_DEPENDENCIES" > /dev/null && sleep 60', dependsOn: [first.id] });
  await waitFor('the dependent job to run', async () => (await client.call('jobs.get', { id: job.id })).job.state === 'running');
  const [left] = await waitFor('its dependency folder', () => {
    const entries = fs.existsSync(folder) ? fs.readdirSync(folder) : [];
    return entries.length > 0 ? entries : undefined;
  });
  assert.ok(left !== undefined && left.startsWith('spool-dependencies-'));
  assert.equal(fs.statSync(folder).mode & 0o777, 0o700);
  assert.equal(fs.statSync(path.join(folder, left, 'dependencies.json')).mode & 0o777, 0o600);

  await daemon.kill();
  assert.ok(fs.existsSync(path.join(folder, left)), 'the killed daemon left the folder');
  await daemon.restart();
  await waitFor('the leftover folder to be removed', () => !fs.existsSync(path.join(folder, left)));
  const again = await daemon.client();
  await again.call('jobs.cancel', { id: job.id }).catch(() => undefined);
});
