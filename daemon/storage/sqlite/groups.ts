/**
 * SQL of groups (../statements/groups.ts) in SQLite: the steps of a grouped queue's claim, the
 * marking of a queue as grouped, and the group listings. The group rows' waiting counts and
 * running weights are kept by the triggers of migration 18, so no statement here (nor any other
 * job statement) has to report a grouped job's move.
 *
 * The claim's walk: `queue_groups_turn` (queue, pass, group_key) over groups with waiting jobs,
 * each probed for its first due job on `jobs_group_claim` (queue, group_key, priority DESC,
 * run_at, id), stopping after `limit` groups; then, when a group gets more than one turn, its
 * next jobs on the same index. Both indexes are
 * named with INDEXED BY, for the reason given in ./claim.ts.
 */
import type { Db } from './db';
import type { DelayedCounts } from './delayed';
import type { PendingCounts } from './counts';
import type { QueueStatements } from './queues';
import { mapJob } from '../mappers';
import { ArrayRows, int, intOrNull, real, text } from './row';
import { compareClaimOrder, type KindFilter } from '../statements/claim';
import type { GroupCandidate, GroupCounts, GroupListParams, GroupServed, GroupSql, GroupTurn } from '../statements/groups';
import type { Job } from '../../../shared/protocol/types';

const INCLUDE = `AND kind IN (SELECT value FROM json_each(@kinds))`;
const EXCLUDE = `AND kind NOT IN (SELECT value FROM json_each(@kinds))`;
/** The due jobs of group `group` (`+run_at` and `+@limit`, and the expiry: see ./claim.ts). */
function groupDue(group: string): string {
  return `queue = @queue AND group_key = ${group} AND state IN ('queued', 'retrying') AND group_key IS NOT NULL AND +run_at <= @now AND (expire_at IS NULL OR expire_at > @now)`;
}

/** Each group's head: its first due job, found on jobs_group_claim and read by its key. */
function turnsSql(kindClause: string): string {
  return `SELECT g.group_key, g.pass, g.running, g.waiting, g.rate_tokens, g.rate_refilled_at,
      h.id, h.weight, length(h.payload) + coalesce(length(h.checkpoint), 0) AS chars
    FROM queue_groups g INDEXED BY queue_groups_turn
    JOIN jobs h ON h.id = (SELECT id FROM jobs INDEXED BY jobs_group_claim WHERE ${groupDue('g.group_key')} ${kindClause}
      ORDER BY priority DESC, run_at, id LIMIT 1)
    WHERE g.queue = @queue AND g.waiting > 0
    ORDER BY g.pass, g.group_key LIMIT +@limit`;
}

function peekSql(kindClause: string): string {
  return `SELECT id, weight, length(payload) + coalesce(length(checkpoint), 0) AS chars FROM jobs INDEXED BY jobs_group_claim
    WHERE ${groupDue('@group')} ${kindClause} ORDER BY priority DESC, run_at, id LIMIT +@limit`;
}

/**
 * The claim of the chosen jobs: each looked up by its primary key. `+queue` and `+state` keep the
 * planner off the claim index: with `queue = ?` usable it walked every waiting job of the queue
 * (jobs_claim) and tested each against the ids, 13 ms a claim with 20,000 waiting.
 */
const CLAIM_IDS = `
  UPDATE jobs SET claimed_from = state, state = 'running', attempts = attempts + 1, runs = runs + 1, worker_id = @workerId,
    lease_expires_at = @now + timeout_ms, started_at = @now, finished_at = NULL,
    progress = NULL, progress_message = NULL, cancel_requested = 0, expire_at = NULL, paused_at = NULL, updated_at = @now
  WHERE id IN (SELECT value FROM json_each(@ids)) AND +queue = @queue AND +state IN ('queued', 'retrying') AND run_at <= @now
    AND (expire_at IS NULL OR expire_at > @now)
  RETURNING *`;

/**
 * The served groups' turns and buckets, one statement: each group's row found by its key. The
 * list is MATERIALIZED first: joined as it was, SQLite walked every group row of the queue and
 * scanned the list for each (10,000 × 50 for a claim of 50 in a queue of 10,000 groups).
 */
const SERVED = `WITH s(group_key, pass, tokens, refilled_at) AS MATERIALIZED (SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3 FROM json_each(@served))
  UPDATE queue_groups SET pass = s.pass, rate_tokens = s.tokens, rate_refilled_at = s.refilled_at
  FROM s WHERE queue_groups.queue = @queue AND queue_groups.group_key = s.group_key`;

/** The statements of a grouped claim (the walk, the peek, the claim by id, the turns), for the query-plan test. */
export const GROUP_CLAIM_SQL_FOR_PLAN = { turns: turnsSql(EXCLUDE), peek: peekSql(EXCLUDE), claimIds: CLAIM_IDS, served: SERVED };

export class GroupStatements implements GroupSql {
  private readonly markStmt;
  private readonly normalizeStmt;
  private readonly turnsInclude;
  private readonly turnsExclude;
  private readonly peekInclude;
  private readonly peekExclude;
  private readonly claimStmt;
  private readonly servedStmt;
  private readonly listStmt;
  private readonly wakeStmt;

  constructor(
    db: Db,
    private readonly counts: PendingCounts,
    private readonly delayed: DelayedCounts,
    private readonly queues: QueueStatements,
  ) {
    this.markStmt = db.prepare('UPDATE queues SET grouped = 1, updated_at = @now WHERE name = @name AND grouped = 0');
    this.normalizeStmt = db.prepare(`UPDATE jobs SET group_key = '' WHERE queue = @name AND group_key IS NULL AND state IN ('blocked', 'queued', 'retrying', 'held', 'running')`);
    this.turnsInclude = new ArrayRows(db.prepare(turnsSql(INCLUDE)), 'group turn');
    this.turnsExclude = new ArrayRows(db.prepare(turnsSql(EXCLUDE)), 'group turn');
    this.peekInclude = new ArrayRows(db.prepare(peekSql(INCLUDE)), 'group candidate');
    this.peekExclude = new ArrayRows(db.prepare(peekSql(EXCLUDE)), 'group candidate');
    this.claimStmt = new ArrayRows(db.prepare(CLAIM_IDS), 'job');
    this.servedStmt = db.prepare(SERVED);
    this.listStmt = new ArrayRows(
      db.prepare(`SELECT g.group_key, g.waiting, g.running AS running_weight,
          (SELECT count(*) FROM jobs WHERE queue = g.queue AND group_key = g.group_key AND state = 'running') AS running
        FROM queue_groups g WHERE g.queue = @queue AND (g.waiting > 0 OR g.running > 0)
          AND (@after IS NULL OR g.group_key > @after) AND (@minRunning IS NULL OR (g.waiting > 0 AND g.running >= @minRunning))
        ORDER BY g.group_key LIMIT @limit`),
      'group',
    );
    this.wakeStmt = new ArrayRows(
      db.prepare(`SELECT g.queue, g.rate_tokens, g.rate_refilled_at FROM queue_groups g JOIN queues q ON q.name = g.queue
        WHERE q.group_rate_per_second IS NOT NULL AND q.paused = 0 AND g.waiting > 0 AND g.rate_tokens < 1
        ORDER BY g.rate_refilled_at LIMIT @limit`),
      'group bucket',
    );
  }

  queueMarkGrouped(p: { name: string; now: number }): boolean {
    if (this.markStmt.run(p).changes === 0) return false;
    this.queues.invalidate();
    this.normalizeStmt.run({ name: p.name });
    return true;
  }

  /** Unlike PostgreSQL, nothing is locked: BEGIN IMMEDIATE holds the write lock. */
  groupTurns(p: { queue: string; kinds: KindFilter; now: number; limit: number }): GroupTurn[] {
    const include = 'include' in p.kinds;
    const stmt = include ? this.turnsInclude : this.turnsExclude;
    const kinds = JSON.stringify('include' in p.kinds ? p.kinds.include : p.kinds.exclude);
    return stmt.all({ queue: p.queue, now: p.now, limit: p.limit, kinds }).map((row) => {
      const group = text(row, 'group_key');
      return {
        group,
        pass: int(row, 'pass'),
        running: int(row, 'running'),
        rate: { tokens: row.get('rate_tokens') === null ? null : real(row, 'rate_tokens'), refilledAt: intOrNull(row, 'rate_refilled_at') },
        waiting: int(row, 'waiting'),
        head: { group, id: text(row, 'id'), weight: int(row, 'weight'), chars: int(row, 'chars') },
      };
    });
  }

  /** One bounded walk of jobs_group_claim per group (a statement here costs no round trip). */
  groupPeek(p: { queue: string; groups: readonly { group: string; room: number }[]; kinds: KindFilter; now: number }): GroupCandidate[] {
    const stmt = 'include' in p.kinds ? this.peekInclude : this.peekExclude;
    const kinds = JSON.stringify('include' in p.kinds ? p.kinds.include : p.kinds.exclude);
    const candidates: GroupCandidate[] = [];
    for (const { group, room } of p.groups) {
      for (const row of stmt.all({ queue: p.queue, group, now: p.now, limit: room, kinds })) {
        candidates.push({ group, id: text(row, 'id'), weight: int(row, 'weight'), chars: int(row, 'chars') });
      }
    }
    return candidates;
  }

  /** Reports the moves to the counters as claimJobs does (./claim.ts). */
  claimJobIds(p: { queue: string; ids: readonly string[]; workerId: string; now: number }): Job[] {
    if (p.ids.length === 0) return [];
    this.delayed.noteWrite(p.now);
    const rows = this.claimStmt.all({ queue: p.queue, ids: JSON.stringify(p.ids), workerId: p.workerId, now: p.now });
    let fromRetrying = 0;
    for (const row of rows) if (text(row, 'claimed_from') === 'retrying') fromRetrying += 1;
    this.counts.add(p.queue, 'queued', -(rows.length - fromRetrying));
    this.counts.add(p.queue, 'retrying', -fromRetrying);
    this.counts.add(p.queue, 'running', rows.length);
    const jobs = rows.map(mapJob);
    let extraWeight = 0;
    for (const job of jobs) extraWeight += job.weight - 1;
    this.counts.runningWeight(p.queue, extraWeight);
    return jobs.sort(compareClaimOrder);
  }

  groupServed(p: { queue: string; served: readonly GroupServed[] }): void {
    if (p.served.length === 0) return;
    this.servedStmt.run({ queue: p.queue, served: JSON.stringify(p.served.map((s) => [s.group, s.pass, s.tokens, s.refilledAt])) });
  }

  groupList(p: GroupListParams): GroupCounts[] {
    return this.listStmt.all({ queue: p.queue, limit: p.limit, after: p.after ?? null, minRunning: p.minRunning ?? null }).map((row) => {
      const key = text(row, 'group_key');
      return { group: key === '' ? null : key, key, waiting: int(row, 'waiting'), running: int(row, 'running'), runningWeight: int(row, 'running_weight') };
    });
  }

  wakeGroupRateLimited(limit: number): { queue: string; tokens: number; refilledAt: number }[] {
    return this.wakeStmt.all({ limit }).map((row) => ({ queue: text(row, 'queue'), tokens: real(row, 'rate_tokens'), refilledAt: int(row, 'rate_refilled_at') }));
  }
}

