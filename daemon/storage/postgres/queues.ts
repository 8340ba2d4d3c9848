/**
 * Statements over queues (../statements/queues.ts), in PostgreSQL: a queue's settings, its
 * creation with the defaults, its token bucket's state.
 */
import type { AsyncPart } from '../statements';
import type { QueueSql } from '../statements/queues';
import { mapSettings } from '../mappers';
import type { PgTx } from './db';

export const queueStatements: AsyncPart<PgTx, QueueSql> = {
  async queueGet(tx, name) {
    const row = await tx.row('SELECT * FROM queues WHERE name = $1', [name]);
    return row === undefined ? undefined : mapSettings(row);
  },

  async queueGetForUpdate(tx, name) {
    const row = await tx.row('SELECT * FROM queues WHERE name = $1 FOR UPDATE', [name]);
    return row === undefined ? undefined : mapSettings(row);
  },

  /** ON CONFLICT DO NOTHING: another daemon may have created it a moment ago. */
  async queueCreate(tx, p) {
    const d = p.defaults;
    const inserted = await tx.run(
      `INSERT INTO queues (name, concurrency, paused, default_max_attempts, backoff_strategy, backoff_base_ms, backoff_cap_ms,
         backoff_jitter, default_timeout_ms, retention_ms, created_at, updated_at)
       VALUES ($1, $2, 0, $3, $4, $5, $6, $7, $8, $9, $10, $10) ON CONFLICT (name) DO NOTHING`,
      [p.name, d.concurrency, d.maxAttempts, d.backoff.strategy, d.backoff.baseMs, d.backoff.capMs, d.backoff.jitter, d.timeoutMs, d.retentionMs, p.now],
    );
    return inserted > 0;
  },

  async queueSetRateState(tx, p) {
    await tx.run('UPDATE queues SET rate_tokens = $2, rate_refilled_at = $3 WHERE name = $1', [p.name, p.tokens, p.refilledAt]);
  },
};
