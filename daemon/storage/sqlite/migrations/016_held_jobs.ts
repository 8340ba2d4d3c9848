/**
 * Migration 16: the `held` state, a waiting job a user has put aside (jobs.hold) until released.
 *
 * The state CHECK gains `held`. SQLite cannot change a CHECK in place, so the jobs table is
 * rebuilt as migration 12 did (new table, copy, drop, rename, indexes again, with foreign keys
 * off). Unlike migration 12, the new table is written from the table as this file has it, read
 * from sqlite_master, with only the state list changed: columns that other migrations added
 * before this one (in whatever order they were applied) are kept as they are, and so are the
 * table's indexes and triggers.
 *
 * The counters gain a `held` row per queue, and new queues get one from the trigger.
 *
 * `settings` holds daemon-wide settings by name, for every daemon on the file: `claimsPaused`
 * ("true" while `spool pause --all` holds every queue).
 */
import type { Db } from '../db';

const STATES_BEFORE = `state IN ('blocked', 'queued', 'running', 'retrying', 'completed', 'dead', 'cancelled')`;
const STATES_AFTER = `state IN ('blocked', 'queued', 'running', 'retrying', 'held', 'completed', 'dead', 'cancelled')`;

/** The SQL of migration 16 for the file as it is. */
export function heldJobs(db: Db): string {
  const table = db.prepare(`SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'jobs'`).pluck().get();
  if (typeof table !== 'string' || !table.includes(STATES_BEFORE)) throw new Error(`the jobs table does not have the state list of migration 12 (${STATES_BEFORE})`);
  const renamed = table.replace(/^CREATE TABLE\s+(?:"jobs"|'jobs'|`jobs`|jobs)\s*\(/, 'CREATE TABLE jobs_new (');
  if (renamed === table) throw new Error('the jobs table definition does not start as expected');
  const others = db
    .prepare(`SELECT sql FROM sqlite_master WHERE tbl_name = 'jobs' AND type IN ('index', 'trigger') AND sql IS NOT NULL ORDER BY type, name`)
    .pluck()
    .all()
    .filter((sql): sql is string => typeof sql === 'string');
  return `
${renamed.replace(STATES_BEFORE, STATES_AFTER)};
INSERT INTO jobs_new SELECT * FROM jobs;
DROP TABLE jobs;
ALTER TABLE jobs_new RENAME TO jobs;
${others.map((sql) => `${sql};`).join('\n')}

INSERT INTO queue_counts (queue, state) SELECT name, 'held' FROM queues;
CREATE TABLE settings (
  name       TEXT NOT NULL PRIMARY KEY,
  value      TEXT NOT NULL,
  updated_at INTEGER NOT NULL
) STRICT, WITHOUT ROWID;

DROP TRIGGER queues_counts_init;
CREATE TRIGGER queues_counts_init AFTER INSERT ON queues BEGIN
  INSERT INTO queue_counts (queue, state) VALUES
    (new.name, 'blocked'), (new.name, 'queued'), (new.name, 'running'), (new.name, 'retrying'),
    (new.name, 'held'), (new.name, 'completed'), (new.name, 'dead'), (new.name, 'cancelled');
END;
`;
}
