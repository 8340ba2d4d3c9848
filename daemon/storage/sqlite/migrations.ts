/**
 * Numbered schema migrations, recorded in `schema_migrations` and each applied in its own
 * write transaction. Add a migration by appending to SQLITE_MIGRATIONS; never edit a released one.
 */
import type { Db } from './db';
import { sqliteInitialSchema } from './migrations/001_initial';
import { runsWhenFinished } from './migrations/002_runs_when_finished';
import { countersByStore } from './migrations/003_counters_by_store';
import { listIndexWithoutRunning } from './migrations/004_list_index_without_running';
import { dueIndexCoversDelayedCount } from './migrations/005_due_index_covers_delayed_count';
import { completedRunsInJobRow } from './migrations/006_completed_runs_in_job_row';
import { outputLinesCarryTheirRun } from './migrations/007_output_lines_carry_their_run';
import { jobsAsCode } from './migrations/008_jobs_as_code';
import { jobWeights } from './migrations/009_job_weights';
import { queueResourceLimits } from './migrations/010_queue_resource_limits';
import { accessTokens } from './migrations/011_tokens';
import { jobDependencies } from './migrations/012_job_dependencies';
import { workflows } from './migrations/013_workflows';
import { uniqueJobs } from './migrations/015_unique_jobs';
import { retryRulesAndExpiry } from './migrations/017_retry_rules_and_expiry';
import { heldJobs } from './migrations/016_held_jobs';
import { groups } from './migrations/018_groups';
import { queueHistory } from './migrations/019_queue_history';
import { priorityAgeing } from './migrations/020_priority_ageing';
import { jobEvents } from './migrations/021_job_events';
import { errorMessage } from '../../../shared/protocol/errors';

export interface Migration {
  version: number;
  name: string;
  /** The SQL, or for a migration that depends on what the file holds, a function that writes it (called inside the migration's transaction). */
  sql: string | ((db: Db) => string);
  /**
   * Run with foreign keys off (set outside the transaction, as SQLite requires), checked before
   * the commit: for a migration that rebuilds a table others refer to.
   */
  foreignKeysOff?: true;
}

export const SQLITE_MIGRATIONS: readonly Migration[] = [
  { version: 1, name: 'initial schema', sql: sqliteInitialSchema },
  { version: 2, name: 'run rows written when an attempt ends', sql: runsWhenFinished },
  { version: 3, name: 'job counters kept by the store', sql: countersByStore },
  { version: 4, name: 'listing index without running jobs', sql: listIndexWithoutRunning },
  { version: 5, name: 'due index covers the delayed count', sql: dueIndexCoversDelayedCount },
  { version: 6, name: 'completed attempts recorded by their job row', sql: completedRunsInJobRow },
  { version: 7, name: 'output lines carry their run', sql: outputLinesCarryTheirRun },
  { version: 8, name: 'jobs as code: owners, templates, overlap policy', sql: jobsAsCode },
  { version: 9, name: 'job weights, worker capacities, the branch index and daemon instances', sql: jobWeights },
  { version: 10, name: 'queue resource limits', sql: queueResourceLimits },
  { version: 11, name: 'access tokens for clients over the network', sql: accessTokens },
  { version: 12, name: 'dependencies between jobs, and the blocked state', sql: jobDependencies, foreignKeysOff: true },
  { version: 13, name: 'workflows, workflow runs, and schedules that start them', sql: workflows },
  { version: 15, name: 'unique jobs, debounce and throttle', sql: uniqueJobs },
  { version: 16, name: 'the held state, and daemon-wide settings', sql: heldJobs, foreignKeysOff: true },
  { version: 17, name: 'retry rules, expiry and deadlines, paused running jobs', sql: retryRulesAndExpiry },
  { version: 18, name: 'groups: a group key per job, limits and turns per group', sql: groups },
  { version: 19, name: 'the history kept of each queue, per minute and hour', sql: queueHistory },
  { version: 20, name: 'priority ageing, and when a group row was found empty', sql: priorityAgeing },
  { version: 21, name: 'the changes of a job that leave no run, with who made them', sql: jobEvents },
];

/** Applies every migration the file lacks; returns the versions applied. */
export function migrateSqlite(db: Db, now: number): number[] {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version    INTEGER PRIMARY KEY,
    name       TEXT NOT NULL,
    applied_at INTEGER NOT NULL
  ) STRICT`);
  const applied: number[] = [];
  const has = db.prepare<[{ version: number }], { version: number }>('SELECT version FROM schema_migrations WHERE version = @version').pluck();
  const record = db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (@version, @name, @now)');
  const newest = SQLITE_MIGRATIONS[SQLITE_MIGRATIONS.length - 1]?.version ?? 0;
  const latestOnFile = db.prepare('SELECT max(version) FROM schema_migrations').pluck().get();
  if (typeof latestOnFile === 'number' && latestOnFile > newest) {
    throw new Error(
      `The database is at schema version ${latestOnFile} but this Spool knows versions up to ${newest}. Upgrade Spool, or use a different database file.`,
    );
  }
  for (const migration of SQLITE_MIGRATIONS) {
    // Checked again inside the write transaction: two processes opening a new file at once
    // must not both apply the same migration.
    const apply = db.transaction(() => {
      if (has.get({ version: migration.version }) !== undefined) return false;
      db.exec(typeof migration.sql === 'string' ? migration.sql : migration.sql(db));
      if (migration.foreignKeysOff && db.prepare('PRAGMA foreign_key_check').all().length > 0) throw new Error('it left rows whose foreign keys point nowhere');
      record.run({ version: migration.version, name: migration.name, now });
      return true;
    });
    if (migration.foreignKeysOff) db.pragma('foreign_keys = OFF');
    try {
      if (apply.immediate()) applied.push(migration.version);
    } catch (error) {
      throw new Error(`Migration ${migration.version} (${migration.name}) failed: ${errorMessage(error)}`);
    } finally {
      if (migration.foreignKeysOff) db.pragma('foreign_keys = ON');
    }
  }
  return applied;
}
