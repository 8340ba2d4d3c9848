/** The columns of the history tables (migrations: SQLite 19, PostgreSQL 9), read the same way by both stores. */
import type { HistoryRow } from './statements/history';
import { int, intOrNull, text, type Row } from './rows';

/** The columns after queue, at and daemon, in the order both stores write them. */
export const HISTORY_COLUMNS = [
  'enqueued',
  'started',
  'completed',
  'failed',
  'dead',
  'cancelled',
  'wait_hist',
  'wait_max',
  'run_hist',
  'run_max',
  'backlog',
  'running',
  'written_at',
] as const;

/** A row's values in HISTORY_COLUMNS' order, after queue, at and daemon. */
export function historyValues(r: HistoryRow): unknown[] {
  return [r.queue, r.at, r.daemon, r.enqueued, r.started, r.completed, r.failed, r.dead, r.cancelled, r.waitHist, r.waitMax, r.runHist, r.runMax, r.backlog, r.running, r.writtenAt];
}

export function mapHistoryRow(row: Row, daemon: boolean): HistoryRow {
  return {
    queue: text(row, 'queue'),
    at: int(row, 'at'),
    daemon: daemon ? text(row, 'daemon') : '',
    enqueued: int(row, 'enqueued'),
    started: int(row, 'started'),
    completed: int(row, 'completed'),
    failed: int(row, 'failed'),
    dead: int(row, 'dead'),
    cancelled: int(row, 'cancelled'),
    waitHist: text(row, 'wait_hist'),
    waitMax: intOrNull(row, 'wait_max'),
    runHist: text(row, 'run_hist'),
    runMax: intOrNull(row, 'run_max'),
    backlog: int(row, 'backlog'),
    running: int(row, 'running'),
    writtenAt: int(row, 'written_at'),
  };
}
