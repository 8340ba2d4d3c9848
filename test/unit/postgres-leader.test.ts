/**
 * The maintenance lease on PostgreSQL: one daemon at a time holds it; the holder renews it; a
 * lease that runs out (its daemon died) is taken by the next daemon that asks; a daemon that
 * stops cleanly gives it up at once. Two engines (two pools, as two daemons) on one database,
 * with a clock the test moves.
 */
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { Engine } from '../../daemon/engine';
import { postgresStore } from '../../daemon/storage/postgres';
import { FakeClock } from '../helpers/engineTest';
import pg from 'pg';
import { sharedPostgres } from '../helpers/postgres';

/** A database of the test's own and a way to open engines on it (closed when the test ends), on one fake clock. */
async function engines(t: TestContext): Promise<{ url: string; clock: FakeClock; open: () => Engine }> {
  const url = await (await sharedPostgres()).database(t);
  const clock = new FakeClock();
  const open = (): Engine => {
    const engine = new Engine({ store: postgresStore({ url, poolSize: 2 }), now: clock.now });
    t.after(() => engine.close());
    return engine;
  };
  return { url, clock, open };
}

test('one daemon holds the maintenance lease; another takes it only once it has run out, or been given up', async (t) => {
  const { clock, open } = await engines(t);
  const [a, b] = [open(), open()];
  const TTL = 5000;

  assert.equal(await a.holdLeadership('maintenance', 'daemon-a', TTL), true, 'a free lease is taken');
  assert.equal(await b.holdLeadership('maintenance', 'daemon-b', TTL), false, 'a held lease is not');
  clock.advance(4000);
  assert.equal(await a.holdLeadership('maintenance', 'daemon-a', TTL), true, 'the holder renews it');
  clock.advance(4000);
  assert.equal(await b.holdLeadership('maintenance', 'daemon-b', TTL), false, 'renewed: still not expired 8 s after it was first taken');
  clock.advance(1001);
  assert.equal(await b.holdLeadership('maintenance', 'daemon-b', TTL), true, 'run out (daemon A stopped renewing): taken over');
  assert.equal(await a.holdLeadership('maintenance', 'daemon-a', TTL), false, 'the old holder is refused');
  assert.equal(await b.holdLeadership('maintenance', 'daemon-b', 0), false, 'a ttl of 0 gives it up');
  assert.equal(await a.holdLeadership('maintenance', 'daemon-a', TTL), true, 'given up: the next to ask takes it at once');
  assert.equal(await b.holdLeadership('other-role', 'daemon-b', TTL), true, 'roles are leased apart');
});

test('daemons racing for a free or run-out lease elect exactly one, round after round', async (t) => {
  const url = await (await sharedPostgres()).database(t);
  const clock = new FakeClock();
  const engines = Array.from({ length: 4 }, () => {
    const engine = new Engine({ store: postgresStore({ url, poolSize: 2 }), now: clock.now });
    t.after(() => engine.close());
    return engine;
  });
  await Promise.all(engines.map((e) => e.open()));
  for (let round = 0; round < 30; round += 1) {
    // All at once: the first round finds the lease free, each later one finds the last winner's run out.
    const won = await Promise.all(engines.map((e, i) => e.holdLeadership('maintenance', `daemon-${i}`, 5000)));
    assert.equal(won.filter(Boolean).length, 1, `round ${round}: ${won.filter(Boolean).length} leaders`);
    clock.advance(5001);
  }
});

test('a follower asking while the holder renews is answered at once: it does not wait for the holder\'s row lock', async (t) => {
  const { url, open } = await engines(t);
  const [a, b] = [open(), open()];
  assert.equal(await a.holdLeadership('maintenance', 'daemon-a', 5000), true);
  // The holder's renewal, caught mid-transaction: its row stays locked until it commits.
  const holder = new pg.Client({ connectionString: url });
  // The database is dropped (its connections ended) when the test ends.
  holder.on('error', () => undefined);
  await holder.connect();
  await holder.query('BEGIN');
  await holder.query(`UPDATE leaders SET expires_at = expires_at + 1000 WHERE role = 'maintenance'`);
  const asked = performance.now();
  const answer = await Promise.race([
    b.holdLeadership('maintenance', 'daemon-b', 5000),
    new Promise<'waited'>((resolve) => setTimeout(() => resolve('waited'), 10_000).unref()),
  ]);
  await holder.query('COMMIT');
  await holder.end();
  assert.equal(answer, false, `the follower is told the lease is held, without waiting (${Math.round(performance.now() - asked)} ms)`);
});
