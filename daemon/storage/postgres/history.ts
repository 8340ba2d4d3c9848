/** Statements over the queue history (../statements/history.ts, migration 9), in PostgreSQL. */
import type { AsyncPart } from '../statements';
import type { HistoryRange, HistoryRow, HistorySql } from '../statements/history';
import { HISTORY_COLUMNS, historyValues, mapHistoryRow } from '../historyRows';
import type { PgTx } from './db';

const NAMES = ['queue', 'at', 'daemon', ...HISTORY_COLUMNS];
const TYPES = ['text', 'bigint', 'text', 'bigint', 'bigint', 'bigint', 'bigint', 'bigint', 'bigint', 'text', 'bigint', 'text', 'bigint', 'bigint', 'bigint', 'bigint'];

/** Every row as one array per column, for one INSERT … SELECT FROM unnest: one statement per write. */
function columnsOf(rows: HistoryRow[]): unknown[][] {
  const columns: unknown[][] = NAMES.map(() => []);
  for (const row of rows) historyValues(row).forEach((v, i) => columns[i]?.push(v));
  return columns;
}

const UNNEST = `unnest(${TYPES.map((t, i) => `$${i + 1}::${t}[]`).join(', ')}) AS r(${NAMES.join(', ')})`;

function range(tx: PgTx, table: string, r: HistoryRange): Promise<import('../rows').Row[]> {
  return r.queue === null
    ? tx.rows(`SELECT * FROM ${table} WHERE at >= $1 AND at < $2 ORDER BY at, queue`, [r.from, r.to])
    : tx.rows(`SELECT * FROM ${table} WHERE at >= $1 AND at < $2 AND queue = $3 ORDER BY at`, [r.from, r.to, r.queue]);
}

export const historyStatements: AsyncPart<PgTx, HistorySql> = {
  /** One statement for every row; only this daemon writes its rows, so no other daemon waits on them. */
  async historyMinutesPut(tx, rows) {
    if (rows.length === 0) return;
    const updates = NAMES.slice(3)
      .map((n) => `${n} = EXCLUDED.${n}`)
      .join(', ');
    await tx.run(`INSERT INTO history_minutes (${NAMES.join(', ')}) SELECT * FROM ${UNNEST} ON CONFLICT (at, queue, daemon) DO UPDATE SET ${updates}`, columnsOf(rows));
  },

  async historyMinutes(tx, r) {
    return (await range(tx, 'history_minutes', r)).map((row) => mapHistoryRow(row, true));
  },

  /** Two daemons rolling up the same hour: the first one's row stays (both computed it from the same minutes). */
  async historyHoursPut(tx, rows) {
    if (rows.length === 0) return;
    const names = NAMES.filter((n) => n !== 'daemon').join(', ');
    await tx.run(`INSERT INTO history_hours (${names}) SELECT ${names} FROM ${UNNEST} ON CONFLICT (at, queue) DO NOTHING`, columnsOf(rows));
  },

  async historyHours(tx, r) {
    return (await range(tx, 'history_hours', r)).map((row) => mapHistoryRow(row, false));
  },

  async historyHoursLatest(tx) {
    const row = await tx.row('SELECT max(at) AS at FROM history_hours');
    const v = row?.get('at');
    return typeof v === 'number' ? v : null;
  },

  async historyPrune(tx, p) {
    await tx.run('DELETE FROM history_minutes WHERE at < $1', [p.minutesBefore]);
    await tx.run('DELETE FROM history_hours WHERE at < $1', [p.hoursBefore]);
  },
};
