/**
 * The pruning of empty group rows (../statements/groupPrune.ts) in SQLite. The note is the
 * column `empty_since` (migration 20), written only here: the triggers that keep a group's
 * counts do not touch it, so a pass clears the note of a group that has jobs again.
 */
import type { Db } from './db';
import type { GroupPruneSql } from '../statements/groupPrune';

export class GroupPruneStatements implements GroupPruneSql {
  private readonly noteStmt;
  private readonly clearStmt;
  private readonly deleteStmt;

  constructor(db: Db) {
    this.noteStmt = db.prepare('UPDATE queue_groups SET empty_since = @now WHERE waiting = 0 AND running = 0 AND empty_since IS NULL');
    this.clearStmt = db.prepare('UPDATE queue_groups SET empty_since = NULL WHERE empty_since IS NOT NULL AND (waiting > 0 OR running > 0)');
    this.deleteStmt = db.prepare(`DELETE FROM queue_groups WHERE rowid IN (
      SELECT rowid FROM queue_groups WHERE empty_since <= @before AND waiting = 0 AND running = 0 LIMIT +@limit)`);
  }

  groupPruneEmpty(p: { now: number; before: number; limit: number }): { noted: number; deleted: number } {
    this.clearStmt.run();
    const noted = this.noteStmt.run({ now: p.now }).changes;
    return { noted, deleted: this.deleteStmt.run({ before: p.before, limit: p.limit }).changes };
  }
}
