/** SQL over the queue history (../statements/history.ts, migration 19). */
import type { HistoryRange, HistoryRow, HistorySql } from '../statements/history';
import { HISTORY_COLUMNS, historyValues, mapHistoryRow } from '../historyRows';
import type { Db } from './db';
import { toRow } from './row';

const NAMES = ['queue', 'at', 'daemon', ...HISTORY_COLUMNS];
const PARAMS = NAMES.map(() => '?').join(', ');
const HOUR_NAMES = NAMES.filter((n) => n !== 'daemon');
const HOUR_PARAMS = HOUR_NAMES.map(() => '?').join(', ');

export class HistoryStatements implements HistorySql {
  private readonly putMinuteStmt;
  private readonly putHourStmt;
  private readonly minutesStmt;
  private readonly minutesOfStmt;
  private readonly hoursStmt;
  private readonly hoursOfStmt;
  private readonly latestHourStmt;
  private readonly pruneMinutesStmt;
  private readonly pruneHoursStmt;

  constructor(db: Db) {
    this.putMinuteStmt = db.prepare(`INSERT OR REPLACE INTO history_minutes (${NAMES.join(', ')}) VALUES (${PARAMS})`);
    this.putHourStmt = db.prepare(`INSERT INTO history_hours (${HOUR_NAMES.join(', ')}) VALUES (${HOUR_PARAMS}) ON CONFLICT (at, queue) DO NOTHING`);
    this.minutesStmt = db.prepare('SELECT * FROM history_minutes WHERE at >= ? AND at < ? ORDER BY at, queue');
    this.minutesOfStmt = db.prepare('SELECT * FROM history_minutes WHERE at >= ? AND at < ? AND queue = ? ORDER BY at');
    this.hoursStmt = db.prepare('SELECT * FROM history_hours WHERE at >= ? AND at < ? ORDER BY at, queue');
    this.hoursOfStmt = db.prepare('SELECT * FROM history_hours WHERE at >= ? AND at < ? AND queue = ? ORDER BY at');
    this.latestHourStmt = db.prepare('SELECT max(at) FROM history_hours').pluck();
    this.pruneMinutesStmt = db.prepare('DELETE FROM history_minutes WHERE at < ?');
    this.pruneHoursStmt = db.prepare('DELETE FROM history_hours WHERE at < ?');
  }

  historyMinutesPut(rows: HistoryRow[]): void {
    for (const row of rows) this.putMinuteStmt.run(historyValues(row));
  }

  historyMinutes(range: HistoryRange): HistoryRow[] {
    const raw = range.queue === null ? this.minutesStmt.all(range.from, range.to) : this.minutesOfStmt.all(range.from, range.to, range.queue);
    return raw.map((r) => mapHistoryRow(toRow(r, 'history minute'), true));
  }

  historyHoursPut(rows: HistoryRow[]): void {
    for (const row of rows) this.putHourStmt.run(historyValues(row).filter((_, i) => i !== 2));
  }

  historyHours(range: HistoryRange): HistoryRow[] {
    const raw = range.queue === null ? this.hoursStmt.all(range.from, range.to) : this.hoursOfStmt.all(range.from, range.to, range.queue);
    return raw.map((r) => mapHistoryRow(toRow(r, 'history hour'), false));
  }

  historyHoursLatest(): number | null {
    const v = this.latestHourStmt.get();
    return typeof v === 'number' ? v : null;
  }

  historyPrune(p: { minutesBefore: number; hoursBefore: number }): void {
    this.pruneMinutesStmt.run(p.minutesBefore);
    this.pruneHoursStmt.run(p.hoursBefore);
  }
}
