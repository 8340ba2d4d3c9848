/**
 * The statements of groups (../statements/groups.ts) in PostgreSQL. A grouped claim locks the
 * group rows of its turn (FOR NO KEY UPDATE SKIP LOCKED: a claimer never waits for another, it
 * takes the next groups), and reads each group's running weight and bucket in the same
 * statement: a row locked after a concurrent update is read as committed (READ COMMITTED), and
 * the triggers of migration 8 update the row in every transaction that moves a grouped job, so
 * the limits per group hold across daemons without a lock on the queue row.
 */
import type { AsyncPart } from '../statements';
import type { KindFilter } from '../statements/claim';
import type { GroupSql } from '../statements/groups';
import { mapJob } from '../mappers';
import { int, intOrNull, text, type Row } from '../rows';
import type { PgTx } from './db';
import { JOBS_DOT_COLUMNS } from './jobs';

function kindList(kinds: KindFilter): { include: boolean; list: string[] } {
  return 'include' in kinds ? { include: true, list: kinds.include } : { include: false, list: kinds.exclude };
}

/** Due jobs of group `group` of queue $1 at $2 of the kinds $3. */
function groupDue(include: boolean, group: string): string {
  return `queue = $1 AND group_key = ${group} AND state IN ('queued', 'retrying') AND group_key IS NOT NULL AND run_at <= $2
    AND (expire_at IS NULL OR expire_at > $2) AND ${include ? '' : 'NOT '}(kind = ANY($3::text[]))`;
}

function num(row: Row, column: string): number | null {
  const v = row.get(column);
  return typeof v === 'number' ? v : null;
}

export const groupStatements: AsyncPart<PgTx, GroupSql> = {
  /** The queue row locked FOR UPDATE first: an enqueue into it (FOR KEY SHARE) waits until its jobs are seen. */
  async queueMarkGrouped(tx, p) {
    const marked = await tx.run('UPDATE queues SET grouped = 1, updated_at = $2 WHERE name = $1 AND grouped = 0', [p.name, p.now]);
    if (marked === 0) return false;
    await tx.run(`UPDATE jobs SET group_key = '' WHERE queue = $1 AND group_key IS NULL AND state IN ('blocked', 'queued', 'retrying', 'held', 'running')`, [p.name]);
    return true;
  },

  async groupTurns(tx, p) {
    const { include, list } = kindList(p.kinds);
    const rows = await tx.rows(
      `SELECT g.group_key, g.pass, g.running, g.waiting, g.rate_tokens, g.rate_refilled_at, h.id, h.weight, h.chars
       FROM queue_groups g CROSS JOIN LATERAL (
         SELECT id, weight, length(payload) + coalesce(length(checkpoint), 0) AS chars FROM jobs
         WHERE ${groupDue(include, 'g.group_key')} ORDER BY priority DESC, run_at, id LIMIT 1) h
       WHERE g.queue = $1 AND g.waiting > 0
       ORDER BY g.pass, g.group_key LIMIT $4 FOR NO KEY UPDATE OF g SKIP LOCKED`,
      [p.queue, p.now, list, p.limit],
    );
    return rows.map((row) => {
      const group = text(row, 'group_key');
      return {
        group,
        pass: int(row, 'pass'),
        running: int(row, 'running'),
        rate: { tokens: num(row, 'rate_tokens'), refilledAt: intOrNull(row, 'rate_refilled_at') },
        waiting: int(row, 'waiting'),
        head: { group, id: text(row, 'id'), weight: int(row, 'weight'), chars: int(row, 'chars') },
      };
    });
  },

  /** One statement for every group: a bounded walk of jobs_group_claim per group, joined laterally. */
  async groupPeek(tx, p) {
    const { include, list } = kindList(p.kinds);
    const rows = await tx.rows(
      `SELECT e.g AS group_key, j.id, j.weight, j.chars
       FROM unnest($4::text[], $5::int[]) WITH ORDINALITY AS e(g, room, n) CROSS JOIN LATERAL (
         SELECT id, weight, length(payload) + coalesce(length(checkpoint), 0) AS chars FROM jobs
         WHERE ${groupDue(include, 'e.g')} ORDER BY priority DESC, run_at, id LIMIT e.room) j
       ORDER BY e.n`,
      [p.queue, p.now, list, p.groups.map((g) => g.group), p.groups.map((g) => g.room)],
    );
    return rows.map((r) => ({ group: text(r, 'group_key'), id: text(r, 'id'), weight: int(r, 'weight'), chars: int(r, 'chars') }));
  },

  /** SKIP LOCKED as the other claims: a job a user is cancelling meanwhile is left out, not waited for. */
  async claimJobIds(tx, p) {
    if (p.ids.length === 0) return [];
    const rows = await tx.rows(
      `WITH next AS (
         SELECT id FROM jobs WHERE id = ANY($1::text[]) AND queue = $2 AND state IN ('queued', 'retrying') AND run_at <= $3
           AND (expire_at IS NULL OR expire_at > $3)
         FOR UPDATE SKIP LOCKED
       )
       UPDATE jobs SET claimed_from = jobs.state, state = 'running', attempts = jobs.attempts + 1, runs = jobs.runs + 1,
         worker_id = $4, lease_expires_at = $3 + jobs.timeout_ms, started_at = $3, finished_at = NULL,
         progress = NULL, progress_message = NULL, cancel_requested = 0, expire_at = NULL, paused_at = NULL, updated_at = $3
       FROM next WHERE jobs.id = next.id
       RETURNING ${JOBS_DOT_COLUMNS}`,
      [p.ids, p.queue, p.now, p.workerId],
    );
    return rows.map(mapJob);
  },

  async groupServed(tx, p) {
    if (p.served.length === 0) return;
    await tx.run(
      `UPDATE queue_groups g SET pass = s.pass, rate_tokens = s.tokens, rate_refilled_at = s.refilled_at
       FROM unnest($2::text[], $3::bigint[], $4::float8[], $5::bigint[]) AS s(group_key, pass, tokens, refilled_at)
       WHERE g.queue = $1 AND g.group_key = s.group_key`,
      [p.queue, p.served.map((s) => s.group), p.served.map((s) => s.pass), p.served.map((s) => s.tokens), p.served.map((s) => s.refilledAt)],
    );
  },

  async groupList(tx, p) {
    const rows = await tx.rows(
      `SELECT g.group_key, g.waiting, g.running AS running_weight,
         (SELECT count(*) FROM jobs WHERE queue = g.queue AND group_key = g.group_key AND state = 'running') AS running
       FROM queue_groups g WHERE g.queue = $1 AND (g.waiting > 0 OR g.running > 0)
         AND ($3::text IS NULL OR g.group_key > $3) AND ($4::bigint IS NULL OR (g.waiting > 0 AND g.running >= $4))
       ORDER BY g.group_key LIMIT $2`,
      [p.queue, p.limit, p.after ?? null, p.minRunning ?? null],
    );
    return rows.map((row) => {
      const key = text(row, 'group_key');
      return { group: key === '' ? null : key, key, waiting: int(row, 'waiting'), running: int(row, 'running'), runningWeight: int(row, 'running_weight') };
    });
  },

  async wakeGroupRateLimited(tx, limit) {
    const rows = await tx.rows(
      `SELECT g.queue, g.rate_tokens, g.rate_refilled_at FROM queue_groups g JOIN queues q ON q.name = g.queue
       WHERE q.group_rate_per_second IS NOT NULL AND q.paused = 0 AND g.waiting > 0 AND g.rate_tokens < 1
       ORDER BY g.rate_refilled_at LIMIT $1`,
      [limit],
    );
    return rows.map((row) => ({ queue: text(row, 'queue'), tokens: num(row, 'rate_tokens') ?? 0, refilledAt: int(row, 'rate_refilled_at') }));
  },
};
