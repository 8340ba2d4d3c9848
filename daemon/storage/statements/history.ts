/**
 * Statements over the history the daemon keeps of each queue (see ./index.ts for the protocol and
 * docs/history.md): one row per queue, minute and daemon instance, written whole by that daemon
 * from what it counted in memory (so several daemons on one PostgreSQL database never write the
 * same row), and one row per queue and hour, rolled up from the minutes once the hour is a day
 * old. Readers sum the rows of one minute; see daemon/engine/history.ts for the figures.
 */

/**
 * A step of a job the queue history counts, recorded by an operation on its ChangeSink and
 * tallied in memory once its transaction commits: `ms` is the wait before a start, or the run
 * time of an attempt that ended (null when the job never ran).
 */
export interface HistoryStep {
  queue: string;
  type: 'enqueued' | 'started' | 'completed' | 'failed' | 'dead' | 'cancelled';
  at: number;
  ms: number | null;
}

/**
 * One stored row: a minute of one daemon (`daemon` its instance id), or an hour (`daemon` '').
 * Histograms are JSON objects of bucket index → count (daemon/engine/history.ts).
 */
export interface HistoryRow {
  queue: string;
  /** Start of the minute or hour, epoch ms. */
  at: number;
  daemon: string;
  enqueued: number;
  started: number;
  completed: number;
  failed: number;
  dead: number;
  cancelled: number;
  waitHist: string;
  waitMax: number | null;
  runHist: string;
  runMax: number | null;
  /** Jobs waiting and running as the store's counters said when the row was written. */
  backlog: number;
  running: number;
  /** When the row was written: of several daemons' rows of a minute, the latest one's backlog is the minute's. */
  writtenAt: number;
}

/** A range of rows: `from` ≤ at < `to`, of one queue or (null) every queue. */
export interface HistoryRange {
  queue: string | null;
  from: number;
  to: number;
}

export interface HistorySql {
  /** Writes minute rows whole: a row of the same queue, minute and daemon is replaced. */
  historyMinutesPut(rows: HistoryRow[]): void;
  /** Minute rows in a range, by `at` then queue. */
  historyMinutes(range: HistoryRange): HistoryRow[];
  /** Writes hour rows; an hour already rolled up (by another daemon) is kept as it is. */
  historyHoursPut(rows: HistoryRow[]): void;
  /** Hour rows in a range, by `at` then queue. */
  historyHours(range: HistoryRange): HistoryRow[];
  /** The start of the latest hour rolled up; null when none is. */
  historyHoursLatest(): number | null;
  /** Deletes minute rows before `minutesBefore` and hour rows before `hoursBefore` (epoch ms). */
  historyPrune(p: { minutesBefore: number; hoursBefore: number }): void;
}
