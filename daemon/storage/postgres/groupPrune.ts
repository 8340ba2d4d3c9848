/**
 * The pruning of empty group rows (../statements/groupPrune.ts) in PostgreSQL, as SQLite's (see
 * it). A row locked by a claim in flight is skipped (SKIP LOCKED) rather than waited for; a job
 * enqueued into the group meanwhile counts in the row before the delete reads it again (READ
 * COMMITTED), so the delete leaves it; one enqueued after the delete makes a new row.
 */
import type { AsyncPart } from '../statements';
import type { GroupPruneSql } from '../statements/groupPrune';
import type { PgTx } from './db';

export const groupPruneStatements: AsyncPart<PgTx, GroupPruneSql> = {
  async groupPruneEmpty(tx, p) {
    await tx.run('UPDATE queue_groups SET empty_since = NULL WHERE empty_since IS NOT NULL AND (waiting > 0 OR running > 0)');
    const noted = await tx.run('UPDATE queue_groups SET empty_since = $1 WHERE waiting = 0 AND running = 0 AND empty_since IS NULL', [p.now]);
    const deleted = await tx.run(
      `DELETE FROM queue_groups WHERE (queue, group_key) IN (
         SELECT queue, group_key FROM queue_groups WHERE empty_since <= $1 AND waiting = 0 AND running = 0 LIMIT $2 FOR UPDATE SKIP LOCKED)
       AND waiting = 0 AND running = 0`,
      [p.before, p.limit],
    );
    return { noted, deleted };
  },
};
