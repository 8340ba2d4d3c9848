/**
 * Statements over what jobs as code adds (../statements/projects.ts), in PostgreSQL: templates,
 * ownership records, and the lock that serializes applies across every daemon on the database.
 */
import type { AsyncPart } from '../statements';
import type { ProjectSql } from '../statements/projects';
import { mapOwnership, mapTemplate } from '../mappers';
import type { PgTx } from './db';

/** The advisory lock key of applies (any constant apart from the migrations' one; "apply" in ASCII). */
const APPLY_LOCK = 0x6170706c79;

export const projectStatements: AsyncPart<PgTx, ProjectSql> = {
  /**
   * A transaction-level advisory lock: under read committed a second apply then reads what the
   * first committed, and plans against it, so nothing is created twice and no apply plans
   * against a stale read. The lock goes with the commit or rollback.
   */
  async projectLockApply(tx) {
    await tx.run('SELECT pg_advisory_xact_lock($1)', [APPLY_LOCK]);
  },

  async templateList(tx) {
    return (await tx.rows('SELECT * FROM templates ORDER BY name')).map(mapTemplate);
  },

  async templateGet(tx, name) {
    const row = await tx.row('SELECT * FROM templates WHERE name = $1', [name]);
    return row === undefined ? undefined : mapTemplate(row);
  },

  async templatePut(tx, p) {
    await tx.run(
      `INSERT INTO templates (name, queue, kind, body, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $5)
       ON CONFLICT (name) DO UPDATE SET queue = EXCLUDED.queue, kind = EXCLUDED.kind, body = EXCLUDED.body, updated_at = EXCLUDED.updated_at`,
      [p.name, p.queue, p.kind, p.body, p.now],
    );
  },

  /** Its ownership record goes with it (trigger templates_unmanage). */
  async templateDelete(tx, name) {
    return (await tx.run('DELETE FROM templates WHERE name = $1', [name])) > 0;
  },

  async ownerList(tx) {
    return (await tx.rows('SELECT * FROM managed_objects ORDER BY type, name')).map(mapOwnership);
  },

  async ownerPut(tx, p) {
    await tx.run(
      `INSERT INTO managed_objects (type, name, project, applied, applied_at) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (type, name) DO UPDATE SET project = EXCLUDED.project, applied = EXCLUDED.applied, applied_at = EXCLUDED.applied_at`,
      [p.type, p.name, p.project, p.applied, p.now],
    );
  },
};
