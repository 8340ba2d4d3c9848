/**
 * Whether a SQLite file is a whole Spool database, for `spool restore` (through `spoold
 * check-database FILE`: the CLI loads no database driver): SQLite's `PRAGMA integrity_check`
 * reads every page, so a truncated copy or one with damaged pages is found even when its checksum
 * matches (the checksum only says the file is the one that was written), and the schema must be
 * Spool's, at a version this Spool knows.
 */
import Database from 'better-sqlite3';
import { errorMessage } from '../../../shared/protocol/errors';
import { SQLITE_MIGRATIONS } from './migrations';

/** The tables every Spool database has, whatever its version. */
const CORE_TABLES = ['schema_migrations', 'queues', 'jobs', 'job_runs', 'job_output', 'schedules', 'workers'];

/** SQLite's integrity_check stops after this many problems; the first few are enough to say why. */
const MAX_PROBLEMS = 5;

/** Why `file` is not a whole Spool database, in words for the user, or null when it is one. */
export function databaseFileProblem(file: string): string | null {
  let db: Database.Database;
  try {
    db = new Database(file, { fileMustExist: true });
  } catch (error) {
    return `SQLite cannot open it (${errorMessage(error)}).`;
  }
  try {
    // One row per problem, some of several lines under a "*** in database main ***" heading.
    const words = db
      .prepare(`PRAGMA integrity_check(${MAX_PROBLEMS})`)
      .pluck()
      .all()
      .flatMap((row) => String(row).split('\n'))
      .map((line) => line.trim())
      .filter((line) => line !== '' && line !== 'ok' && !/^\*\*\* in database \w+ \*\*\*$/.test(line));
    if (words.length > 0) return `SQLite's integrity check found it damaged: ${words.join('; ')}.`;
    const tables = new Set(db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all().map(String));
    const missing = CORE_TABLES.filter((name) => !tables.has(name));
    if (missing.length > 0) return `It is not a Spool database: it lacks the tables ${missing.join(', ')}.`;
    const version = Number(db.prepare('SELECT max(version) FROM schema_migrations').pluck().get());
    const newest = SQLITE_MIGRATIONS[SQLITE_MIGRATIONS.length - 1]?.version ?? 0;
    if (version > newest) return `It is at schema version ${version}, newer than this Spool knows (up to ${newest}): upgrade Spool first.`;
    return null;
  } catch (error) {
    // A file damaged badly enough (a truncated one) fails before the check can report.
    return `SQLite cannot read it whole (${errorMessage(error)}).`;
  } finally {
    db.close();
  }
}
