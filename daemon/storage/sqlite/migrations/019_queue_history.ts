/**
 * Migration 19: the history kept of each queue (docs/history.md). `history_minutes` has one row
 * per queue, minute and daemon instance, written whole by that daemon; `history_hours` one row per
 * queue and hour, rolled up from the minutes. Histograms are JSON text.
 */
const COLUMNS = `
  enqueued   INTEGER NOT NULL,
  started    INTEGER NOT NULL,
  completed  INTEGER NOT NULL,
  failed     INTEGER NOT NULL,
  dead       INTEGER NOT NULL,
  cancelled  INTEGER NOT NULL,
  wait_hist  TEXT NOT NULL,
  wait_max   INTEGER,
  run_hist   TEXT NOT NULL,
  run_max    INTEGER,
  backlog    INTEGER NOT NULL,
  running    INTEGER NOT NULL,
  written_at INTEGER NOT NULL`;

export const queueHistory = `
CREATE TABLE history_minutes (
  at         INTEGER NOT NULL,
  queue      TEXT NOT NULL,
  daemon     TEXT NOT NULL,${COLUMNS},
  PRIMARY KEY (at, queue, daemon)
) STRICT, WITHOUT ROWID;
CREATE TABLE history_hours (
  at         INTEGER NOT NULL,
  queue      TEXT NOT NULL,${COLUMNS},
  PRIMARY KEY (at, queue)
) STRICT, WITHOUT ROWID;
`;
