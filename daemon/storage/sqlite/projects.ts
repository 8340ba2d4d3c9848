/**
 * SQL over what jobs as code adds (../statements/projects.ts): templates and the ownership
 * records of managed objects (migration 8). A schedule's template, parameters and overlap policy
 * are columns of schedules (schedules.ts); an object's owner is joined into its row where it is
 * read.
 */
import type { Ownership, StoredTemplate } from '../statements/projects';
import type { OwnerWrite, ProjectSql, TemplateWrite } from '../statements/projects';
import type { Db } from './db';
import type { QueueStatements } from './queues';
import { mapOwnership, mapTemplate } from '../mappers';
import { toRow } from './row';

export class ProjectStatements implements ProjectSql {
  private readonly templatesStmt;
  private readonly templateStmt;
  private readonly putTemplateStmt;
  private readonly deleteTemplateStmt;
  private readonly ownedStmt;
  private readonly ownStmt;

  constructor(
    db: Db,
    private readonly queues: QueueStatements,
  ) {
    this.templatesStmt = db.prepare('SELECT * FROM templates ORDER BY name');
    this.templateStmt = db.prepare('SELECT * FROM templates WHERE name = @name');
    this.putTemplateStmt = db.prepare(`
      INSERT INTO templates (name, queue, kind, body, created_at, updated_at) VALUES (@name, @queue, @kind, @body, @now, @now)
      ON CONFLICT (name) DO UPDATE SET queue = excluded.queue, kind = excluded.kind, body = excluded.body, updated_at = excluded.updated_at`);
    this.deleteTemplateStmt = db.prepare('DELETE FROM templates WHERE name = @name');
    this.ownedStmt = db.prepare('SELECT * FROM managed_objects ORDER BY type, name');
    this.ownStmt = db.prepare(`
      INSERT INTO managed_objects (type, name, project, applied, applied_at) VALUES (@type, @name, @project, @applied, @now)
      ON CONFLICT (type, name) DO UPDATE SET project = excluded.project, applied = excluded.applied, applied_at = excluded.applied_at`);
  }

  /**
   * Unlike PostgreSQL, SQLite needs no lock of its own: an apply is one BEGIN IMMEDIATE
   * transaction, and a second apply (from this process or another on the file) waits for the
   * write lock, then plans against what the first committed.
   */
  projectLockApply(): void {}

  templateList(): StoredTemplate[] {
    return this.templatesStmt.all().map((raw) => mapTemplate(toRow(raw, 'template')));
  }

  templateGet(name: string): StoredTemplate | undefined {
    const raw = this.templateStmt.get({ name });
    return raw === undefined ? undefined : mapTemplate(toRow(raw, 'template'));
  }

  templatePut(values: TemplateWrite): void {
    this.putTemplateStmt.run(values);
  }

  /** Its ownership record goes with it (trigger templates_unmanage). */
  templateDelete(name: string): boolean {
    return this.deleteTemplateStmt.run({ name }).changes > 0;
  }

  ownerList(): Ownership[] {
    return this.ownedStmt.all().map((raw) => mapOwnership(toRow(raw, 'managed object')));
  }

  /** A queue's owner is read with its cached settings: they are read again after it changes. */
  ownerPut(values: OwnerWrite): void {
    this.ownStmt.run(values);
    if (values.type === 'queue') this.queues.invalidate();
  }
}
