/**
 * Statement-level conformance of the queue history (daemon/storage/statements/history.ts): each
 * statement called raw on every store alike.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from '../../../daemon/storage/statements';
import type { HistoryRow } from '../../../daemon/storage/statements/history';
import { statementStore, type StatementStoreFactory } from './harness';

const MINUTE = 60_000;
const HOUR = 3_600_000;

function row(queue: string, at: number, daemon: string, n: number): HistoryRow {
  return {
    queue,
    at,
    daemon,
    enqueued: n,
    started: n,
    completed: n,
    failed: 0,
    dead: 1,
    cancelled: 2,
    waitHist: '{"41":3}',
    waitMax: 1200,
    runHist: '{}',
    runMax: null,
    backlog: 7,
    running: 1,
    writtenAt: at + 5000,
  };
}

export function defineHistoryStatements(factory: StatementStoreFactory): void {
  describe('statements: queue history', () => {
    const store = statementStore(factory);

    it('puts minute rows whole (a row of the same queue, minute and daemon replaced), reads ranges per queue or all, rolls hours in once, prunes', async () => {
      const s = store();
      const t0 = Math.floor(s.clock.ms / HOUR) * HOUR;
      const result = await s.run(function* () {
        yield* sql('historyMinutesPut', [row('st-ha', t0, 'd1', 1), row('st-ha', t0, 'd2', 2), row('st-hb', t0 + MINUTE, 'd1', 3)]);
        yield* sql('historyMinutesPut', [row('st-ha', t0, 'd1', 5)]);
        const all = yield* sql('historyMinutes', { queue: null, from: t0, to: t0 + HOUR });
        const ofA = yield* sql('historyMinutes', { queue: 'st-ha', from: t0, to: t0 + HOUR });
        const none = yield* sql('historyMinutes', { queue: null, from: t0 + MINUTE * 2, to: t0 + HOUR });
        const latestBefore = yield* sql('historyHoursLatest');
        yield* sql('historyHoursPut', [row('st-ha', t0, '', 9), row('st-hb', t0 + HOUR, '', 4)]);
        yield* sql('historyHoursPut', [row('st-ha', t0, '', 100)]);
        const hours = yield* sql('historyHours', { queue: null, from: t0, to: t0 + 2 * HOUR });
        const hoursOfB = yield* sql('historyHours', { queue: 'st-hb', from: t0, to: t0 + 2 * HOUR });
        const latest = yield* sql('historyHoursLatest');
        yield* sql('historyPrune', { minutesBefore: t0 + MINUTE, hoursBefore: t0 + HOUR });
        const minutesLeft = yield* sql('historyMinutes', { queue: null, from: 0, to: t0 + HOUR });
        const hoursLeft = yield* sql('historyHours', { queue: null, from: 0, to: t0 + 2 * HOUR });
        return { all, ofA, none, latestBefore, hours, hoursOfB, latest, minutesLeft, hoursLeft };
      });
      assert.deepEqual(result.all, [row('st-ha', t0, 'd1', 5), row('st-ha', t0, 'd2', 2), row('st-hb', t0 + MINUTE, 'd1', 3)]);
      assert.deepEqual(result.ofA, [row('st-ha', t0, 'd1', 5), row('st-ha', t0, 'd2', 2)]);
      assert.deepEqual(result.none, []);
      assert.equal(result.latestBefore, null);
      assert.deepEqual(result.hours, [row('st-ha', t0, '', 9), row('st-hb', t0 + HOUR, '', 4)], 'an hour already rolled up is kept');
      assert.deepEqual(result.hoursOfB, [row('st-hb', t0 + HOUR, '', 4)]);
      assert.equal(result.latest, t0 + HOUR);
      assert.deepEqual(result.minutesLeft, [row('st-hb', t0 + MINUTE, 'd1', 3)]);
      assert.deepEqual(result.hoursLeft, [row('st-hb', t0 + HOUR, '', 4)]);
    });
  });
}
