/**
 * The PostgreSQL store's numbered migrations, run when a daemon opens the store. They run under
 * a session advisory lock, so that several daemons starting at once migratePostgres once: the first takes
 * the lock and migrates, the others wait for it and then find nothing left to do.
 */
import type pg from 'pg';
import { postgresInitialSchema } from './migrations/001_initial';
import { postgresJobDependencies } from './migrations/002_job_dependencies';
import { postgresWorkflows } from './migrations/003_workflows';
import { postgresUniqueJobs } from './migrations/005_unique_jobs';
import { postgresRetryRulesAndExpiry } from './migrations/007_retry_rules_and_expiry';
import { postgresHeldJobs } from './migrations/006_held_jobs';
import { postgresGroups } from './migrations/008_groups';
import { postgresQueueHistory } from './migrations/009_queue_history';
import { postgresPriorityAgeing } from './migrations/010_priority_ageing';
import { postgresCheaperCounts } from './migrations/013_cheaper_counts';
import { postgresJobEvents } from './migrations/011_job_events';

export const POSTGRES_MIGRATIONS: readonly { version: number; name: string; sql: string }[] = [
  { version: 1, name: 'initial', sql: postgresInitialSchema },
  { version: 2, name: 'dependencies between jobs, and the blocked state', sql: postgresJobDependencies },
  { version: 3, name: 'workflows, workflow runs, and schedules that start them', sql: postgresWorkflows },
  { version: 5, name: 'unique jobs, debounce and throttle', sql: postgresUniqueJobs },
  { version: 6, name: 'the held state, and daemon-wide settings', sql: postgresHeldJobs },
  { version: 7, name: 'retry rules, expiry and deadlines, paused running jobs', sql: postgresRetryRulesAndExpiry },
  { version: 8, name: 'groups: a group key per job, limits and turns per group', sql: postgresGroups },
  { version: 9, name: 'the history kept of each queue, per minute and hour', sql: postgresQueueHistory },
  { version: 10, name: 'priority ageing, and when a group row was found empty', sql: postgresPriorityAgeing },
  { version: 11, name: 'the changes of a job that leave no run, with who made them', sql: postgresJobEvents },
  { version: 13, name: 'the counter trigger of an update reads each transition table once', sql: postgresCheaperCounts },
];

/** The advisory lock key of migrations (any constant; "spool" in ASCII). */
const MIGRATION_LOCK = 0x73706f6f6c;

/** Applies the migrations this database lacks, in order, each in its own transaction; which it applied. */
export async function migratePostgres(client: pg.ClientBase, now: number): Promise<number[]> {
  await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
  try {
    await client.query('CREATE TABLE IF NOT EXISTS spool_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)');
    const applied = new Set((await client.query<{ version: number }>('SELECT version FROM spool_migrations')).rows.map((r) => r.version));
    const newest = Math.max(0, ...applied);
    const known = Math.max(...POSTGRES_MIGRATIONS.map((m) => m.version));
    if (newest > known) {
      throw new Error(`The database was migrated by a newer Spool (schema version ${newest}; this one knows up to ${known}). Upgrade this daemon, or point it at another database.`);
    }
    const done: number[] = [];
    for (const migration of POSTGRES_MIGRATIONS) {
      if (applied.has(migration.version)) continue;
      await client.query('BEGIN');
      try {
        await client.query(migration.sql);
        await client.query('INSERT INTO spool_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [migration.version, migration.name, now]);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw error;
      }
      done.push(migration.version);
    }
    return done;
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
  }
}
