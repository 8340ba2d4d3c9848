import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { Leadership } from '../../daemon/lifecycle/leadership';
import { createLogger } from '../../daemon/lifecycle/logger';
import { sqliteEngine } from '../helpers/sqliteEngine';
import { tempDir } from './helpers/engine';

test('on SQLite (no leases) the daemon leads from its start without asking the store, and nothing renews it on a timer', async (t) => {
  const engine = sqliteEngine({ dbPath: path.join(tempDir(t), 'spool.db') });
  t.after(() => engine.close());
  // The store's own answer, as before: every daemon on a SQLite file leads.
  assert.equal(await engine.holdLeadership('maintenance', 'daemon-a', 5000), true);
  let asked = 0;
  const counting = {
    holdLeadership: (role: string, daemonId: string, ttlMs: number) => {
      asked += 1;
      return engine.holdLeadership(role, daemonId, ttlMs);
    },
  };
  const log: string[] = [];
  let gained = 0;
  const leadership = new Leadership(counting, 'daemon-a', createLogger('text', (line) => log.push(line)), false, undefined, {
    gained: () => (gained += 1),
    held: () => undefined,
  });
  await leadership.start();
  assert.equal(leadership.isLeader, true);
  assert.equal(gained, 1, 'its duties learn that it leads, once');
  // A renewal is a write transaction through holdLeadership: none was made, and no timer was
  // armed to make one later.
  assert.equal(asked, 0, 'no transaction to take or renew a lease the store does not keep');
  assert.equal((leadership as unknown as { timer: unknown }).timer, null, 'no renewal timer');
  await leadership.stop();
  assert.equal(leadership.isLeader, false, 'a stopped daemon no longer maintains');
  assert.equal(asked, 0, 'nothing to give up either');
  assert.deepEqual(log, [], 'nothing to announce: no other daemon could take over');
});
