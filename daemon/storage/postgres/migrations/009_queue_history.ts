/**
 * Migration 9: the history kept of each queue, as SQLite's migration 19. A minute row belongs to
 * one daemon instance, which alone writes it: daemons sharing the database never wait on each
 * other's rows, and readers sum a minute's rows.
 */
const COLUMNS = `
  enqueued   BIGINT NOT NULL,
  started    BIGINT NOT NULL,
  completed  BIGINT NOT NULL,
  failed     BIGINT NOT NULL,
  dead       BIGINT NOT NULL,
  cancelled  BIGINT NOT NULL,
  wait_hist  TEXT NOT NULL,
  wait_max   BIGINT,
  run_hist   TEXT NOT NULL,
  run_max    BIGINT,
  backlog    BIGINT NOT NULL,
  running    BIGINT NOT NULL,
  written_at BIGINT NOT NULL`;

export const postgresQueueHistory = `
CREATE TABLE history_minutes (
  at         BIGINT NOT NULL,
  queue      TEXT NOT NULL,
  daemon     TEXT NOT NULL,${COLUMNS},
  PRIMARY KEY (at, queue, daemon)
);
CREATE TABLE history_hours (
  at         BIGINT NOT NULL,
  queue      TEXT NOT NULL,${COLUMNS},
  PRIMARY KEY (at, queue)
);
`;
