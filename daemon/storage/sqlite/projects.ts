/**
 * SQL over what jobs as code adds: templates and the ownership records of managed objects
 * (migration 8). A schedule's template, parameters and overlap policy are columns of schedules
 * (schedules.ts); an object's owner is joined into its row where it is read.
 */
import type { ManagedType, Ownership, StoredTemplate } from '../backend';
import type { Db } from './db';
import { mapOwnership, mapTemplate } from '../mappers';
import { toRow } from './row';



export class ProjectStatements {
  private readonly templatesStmt;
  private readonly templateStmt;
  private readonly putTemplateStmt;
  private readonly deleteTemplateStmt;
  private readonly ownedStmt;
  private readonly ownStmt;

  constructor(db: Db) {
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

  templates(): StoredTemplate[] {
    return this.templatesStmt.all().map((raw) => mapTemplate(toRow(raw, 'template')));
  }

  template(name: string): StoredTemplate | undefined {
    const raw = this.templateStmt.get({ name });
    return raw === undefined ? undefined : mapTemplate(toRow(raw, 'template'));
  }

  putTemplate(values: { name: string; queue: string; kind: string; body: string; now: number }): void {
    this.putTemplateStmt.run(values);
  }

  /** Its ownership record goes with it (trigger templates_unmanage). */
  deleteTemplate(name: string): boolean {
    return this.deleteTemplateStmt.run({ name }).changes > 0;
  }

  owned(): Ownership[] {
    return this.ownedStmt.all().map((raw) => mapOwnership(toRow(raw, 'managed object')));
  }

  /** Records `project` as the owner of an object and `applied` as what it declared. */
  own(values: { type: ManagedType; name: string; project: string; applied: string; now: number }): void {
    this.ownStmt.run(values);
  }
}
