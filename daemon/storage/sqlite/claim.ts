/**
 * The claim path: the hottest SQL in Spool.
 *
 * A claim of one queue is a single statement,
 *
 *   UPDATE jobs SET state = 'running', … WHERE id IN (SELECT id … ORDER BY priority DESC, run_at, id LIMIT n) RETURNING *
 *
 * (`id = (SELECT …)` when n is 1, see claimSql).
 *
 * The inner SELECT walks the partial index `jobs_claim (queue, priority DESC, run_at, id)` in
 * its own order and stops after n due rows, so its cost does not grow with the backlog. The
 * index only holds queued and retrying rows, and its column directions match the ORDER BY:
 * with any mismatch SQLite would sort the whole backlog in a temp B-tree on every claim
 * (a unit test asserts the plan). The index is named with INDEXED BY: once ANALYZE has run,
 * SQLite's planner may otherwise prefer the `jobs_due (queue, state, run_at)` range and sort
 * its result, which is exactly the backlog-sized sort to avoid (and if the index could not be
 * used, preparing the statement fails loudly instead). `run_at <= now` and the kind filter are
 * checked on index entries as the walk goes; delayed jobs with a higher priority than the due
 * ones are stepped over.
 *
 * Weights: when a queue's concurrency or the claimer's capacity bounds the claim, the bound is a
 * weight (`@room`), and the claim takes the longest prefix of the claim order that fits in it:
 * for one job, the outer `AND weight <= @room`; for a batch, a running sum of weight over the
 * same ordered walk (as the answer budget's). A job too heavy for the room left stops the claim
 * rather than being stepped over, so a heavy job is not starved by lighter ones behind it. A
 * claim no weight bounds (no concurrency, no capacity) runs the statements without the weight,
 * as before weights existed; measured with the bench, the claim of jobs of the default weight
 * under a concurrency limit costs the same (see the commit that added weights).
 *
 * The kind filter is either an include list (`kind IN json_each(@kinds)`) or an exclude list
 * (the built-in kinds a remote worker must never get); both are JSON arrays so one prepared
 * statement serves every list.
 */
import { LIMITS } from '../../../shared/protocol';
import type { PendingCounts } from './counts';
import type { Db } from './db';
import type { DelayedCounts } from './delayed';
import { claimReadBack, mapClaimedJob, mapJob, type ClaimReadBack } from '../mappers';
import type { QueueStatements } from './queues';
import type { WorkerStatements } from './workers';
import type { StoredQueue } from '../statements/queues';
import { ArrayRows, int, text, textOrNull, toRow } from './row';
import { CLAIM_ANSWER_BUDGET, compareClaimOrder, type ClaimCandidate, type ClaimJobs, type ClaimQueue, type ClaimSimple, type ClaimStart, type ClaimedJobs, type ClaimSql, type KindFilter } from '../statements/claim';

export { CLAIM_ANSWER_BUDGET, compareClaimOrder, type ClaimedJobs, type KindFilter } from '../statements/claim';

// `+run_at`: the unary plus keeps the planner from using run_at as an index range (a skip-scan
// over priorities after ANALYZE), which would force a sort; run_at is checked on each entry.
// A job past its expiry is never claimed, even before the upkeep has ended it (expire_at is
// cleared by the claim that starts a job, so only jobs that never started are held back).
const DUE = `queue = @queue AND state IN ('queued', 'retrying') AND +run_at <= @now AND (expire_at IS NULL OR expire_at > @now)`;
// `+@limit`, not `@limit`: SQLite reads a bare bound LIMIT while it plans (to size the IN list
// or the result) and then marks the statement to be compiled again whenever the parameter is
// bound anew, which better-sqlite3 does on every run. Measured on a claim of a batch: 18 µs a
// statement with `@limit`, 4 µs with `+@limit`. The expression hides the value from the planner.
const ORDER = `ORDER BY priority DESC, run_at, id LIMIT +@limit`;
const INCLUDE = `AND kind IN (SELECT value FROM json_each(@kinds))`;
const EXCLUDE = `AND kind NOT IN (SELECT value FROM json_each(@kinds))`;

/**
 * Claims of at most this many jobs cannot reach the budget (payload and checkpoint are each
 * limited to LIMITS.maxPayloadBytes), so they skip the running sum, which costs a claim of 50
 * about twice the time of its SELECT.
 */
export const UNBUDGETED_CLAIM_MAX = Math.floor(CLAIM_ANSWER_BUDGET / (2 * LIMITS.maxPayloadBytes));

/** The characters a claimed job adds to the answer, as the budget counts them. */
const ANSWER_CHARS = `length(payload) + coalesce(length(checkpoint), 0)`;

/**
 * The ids to claim. With a budget, a running sum over the same ordered walk keeps each job whose
 * predecessors stayed under `@budget` (so at least one job, and at most one past the budget).
 */
function claimIdsSql(kindClause: string, budgeted: boolean): string {
  if (!budgeted) return `SELECT id FROM jobs INDEXED BY jobs_claim WHERE ${DUE} ${kindClause} ${ORDER}`;
  return `SELECT id FROM (
      SELECT id, sum(${ANSWER_CHARS}) OVER (ORDER BY priority DESC, run_at, id ROWS UNBOUNDED PRECEDING) - (${ANSWER_CHARS}) AS before
      FROM jobs INDEXED BY jobs_claim WHERE ${DUE} ${kindClause} ${ORDER})
    WHERE before < @budget`;
}

/**
 * The ids of a batch claim bounded by `@room` weight: the longest prefix of the claim order whose
 * weights sum to at most the room, within the answer budget too.
 */
function weightedClaimIdsSql(kindClause: string): string {
  return `SELECT id FROM (
      SELECT id,
        sum(weight) OVER (ORDER BY priority DESC, run_at, id ROWS UNBOUNDED PRECEDING) AS used,
        sum(${ANSWER_CHARS}) OVER (ORDER BY priority DESC, run_at, id ROWS UNBOUNDED PRECEDING) - (${ANSWER_CHARS}) AS before
      FROM jobs INDEXED BY jobs_claim WHERE ${DUE} ${kindClause} ${ORDER})
    WHERE used <= @room AND before < @budget`;
}

/**
 * A claim bounded by `@room` weight: one job (the next in claim order, if it fits), or a batch.
 */
function weightedClaimSql(kindClause: string, single: boolean, returning: string): string {
  const where = single ? `id = (${claimIdsSql(kindClause, false)}) AND weight <= @room` : `id IN (${weightedClaimIdsSql(kindClause)})`;
  return `
    UPDATE jobs SET claimed_from = state, state = 'running', attempts = attempts + 1, runs = runs + 1, worker_id = @workerId,
      lease_expires_at = @now + timeout_ms, started_at = @now, finished_at = NULL,
      progress = NULL, progress_message = NULL, cancel_requested = 0, expire_at = NULL, paused_at = NULL, updated_at = @now
    WHERE ${where}
    RETURNING ${returning}`;
}

/**
 * `id IN (…)` for batches; `id = (…)` for a single job, which measured four times cheaper per
 * statement (≈37 µs against ≈170 µs of CPU): SQLite materializes an IN list into an ephemeral
 * table first, which a batch amortizes and a single claim pays in full.
 */
function claimSql(kindClause: string, single: boolean, budgeted: boolean, returning: string): string {
  return `
    UPDATE jobs SET claimed_from = state, state = 'running', attempts = attempts + 1, runs = runs + 1, worker_id = @workerId,
      lease_expires_at = @now + timeout_ms, started_at = @now, finished_at = NULL,
      progress = NULL, progress_message = NULL, cancel_requested = 0, expire_at = NULL, paused_at = NULL, updated_at = @now
    WHERE id ${single ? '=' : 'IN'} (${claimIdsSql(kindClause, budgeted)})
    RETURNING ${returning}`;
}

function peekSql(kindClause: string): string {
  return `SELECT weight, priority, run_at, id FROM jobs INDEXED BY jobs_claim WHERE ${DUE} ${kindClause} ${ORDER}`;
}

/** The SELECT a claim runs, for the query-plan test. */
export const CLAIM_SELECT_FOR_PLAN = claimIdsSql(EXCLUDE, false);
/** The SELECT of a batch claim bounded by weight, for the query-plan test. */
export const WEIGHTED_CLAIM_SELECT_FOR_PLAN = weightedClaimIdsSql(EXCLUDE);
/** The same with the answer budget (claims of more than UNBUDGETED_CLAIM_MAX jobs). */
export const BUDGETED_CLAIM_SELECT_FOR_PLAN = claimIdsSql(EXCLUDE, true);

/** Which of the claim statements a claim runs. */
type ClaimVariant = { include: boolean; single: boolean; budgeted: boolean; weighted: boolean };

function variantSql(v: ClaimVariant, returning: string): string {
  const kindClause = v.include ? INCLUDE : EXCLUDE;
  return v.weighted ? weightedClaimSql(kindClause, v.single, returning) : claimSql(kindClause, v.single, v.budgeted, returning);
}

/** Statements prepared for the columns of named fields; more (clients varying them) start afresh. */
const READ_BACK_STATEMENTS_KEPT = 128;

export class ClaimStatements implements ClaimSql {
  /** The claim statements by variant and RETURNING list: those of whole rows prepared at once, the others when first used. */
  private readonly claims = new Map<string, ArrayRows>();
  private readBackStatements = 0;
  private readonly peekInclude;
  private readonly peekExclude;

  /** A row while every queue is paused (ops/pauseAll.ts). */
  private readonly allPausedStmt;

  constructor(
    private readonly db: Db,
    private readonly counts: PendingCounts,
    private readonly delayed: DelayedCounts,
    private readonly queues: QueueStatements,
    private readonly workers: WorkerStatements,
  ) {
    this.allPausedStmt = db.prepare(`SELECT 1 FROM settings WHERE name = 'claimsPaused' AND value = 'true'`).pluck();
    // Prepared now, so that a statement SQLite cannot plan as written (INDEXED BY) fails at start.
    for (const include of [true, false]) {
      for (const single of [true, false]) {
        this.claimStatement({ include, single, budgeted: false, weighted: false }, null);
        this.claimStatement({ include, single, budgeted: false, weighted: true }, null);
      }
      this.claimStatement({ include, single: false, budgeted: true, weighted: false }, null);
    }
    this.peekInclude = db.prepare(peekSql(INCLUDE));
    this.peekExclude = db.prepare(peekSql(EXCLUDE));
  }

  private claimStatement(v: ClaimVariant, readBack: ClaimReadBack | null): ArrayRows {
    const returning = readBack === null ? '*' : readBack.list;
    const key = `${v.include ? 'i' : 'e'}${v.single ? 1 : 'n'}${v.budgeted ? 'b' : ''}${v.weighted ? 'w' : ''} ${returning}`;
    const known = this.claims.get(key);
    if (known !== undefined) return known;
    if (readBack !== null && this.readBackStatements >= READ_BACK_STATEMENTS_KEPT) {
      for (const k of [...this.claims.keys()]) if (!k.endsWith(' *')) this.claims.delete(k);
      this.readBackStatements = 0;
    }
    const stmt = new ArrayRows(this.db.prepare(variantSql(v, returning)), 'job');
    this.claims.set(key, stmt);
    if (readBack !== null) this.readBackStatements += 1;
    return stmt;
  }

  // Statements of ../statements/claim.ts (ClaimSql).

  /**
   * From the cached settings (QueueStatements), with a read of the running weight for a queue
   * with a concurrency limit and of the bucket for one with a rate limit. Unlike PostgreSQL,
   * nothing is locked and queues without due jobs are not left out: BEGIN IMMEDIATE holds the
   * write lock, and a queue with nothing due costs its claim one index probe that finds nothing.
   */
  claimQueues(p: { queues: readonly string[]; kinds: KindFilter; now: number }): ClaimQueue[] {
    const found: ClaimQueue[] = [];
    if (this.allPausedStmt.get() !== undefined) return found;
    if (p.queues.length === 0) for (const settings of this.queues.all()) this.addClaimQueue(found, settings);
    else for (const name of p.queues) this.addClaimQueue(found, this.queues.queueGet(name));
    return found;
  }

  /** Both statements it stands for, in turn: SQLite has no round trips to save. */
  claimStart(p: { workerId: string; queues: readonly string[]; kinds: KindFilter; now: number }): ClaimStart {
    const capacity = this.workers.workerCapacityLeft(p.workerId);
    return { capacity, queues: capacity !== null && capacity <= 0 ? [] : this.claimQueues(p) };
  }

  /** claimStart, then claimJobs when its answer is simple: SQLite has no round trips to save. */
  claimSimple(p: ClaimSimple): ClaimedJobs | null {
    const start = this.claimStart(p);
    if (start.capacity !== null || start.queues.length > 1) return null;
    const only = start.queues[0]?.settings;
    if (only === undefined) return { jobs: [], chars: 0 };
    if (only.concurrency !== null || only.rateLimit !== null || only.grouped) return null;
    return this.claimJobs({ queue: only.name, kinds: p.kinds, limit: p.limit, workerId: p.workerId, now: p.now, budget: p.budget, room: null, peeked: false, ...(p.fields === undefined ? {} : { fields: p.fields }) });
  }

  private addClaimQueue(found: ClaimQueue[], settings: StoredQueue | undefined): void {
    if (settings === undefined || settings.paused) return;
    found.push({
      settings,
      runningWeight: settings.concurrency === null ? 0 : this.queues.runningWeight(settings.name),
      rate: settings.rateLimit === null ? null : this.queues.rateState(settings.name),
    });
  }

  /**
   * Claims up to `limit` due jobs of one queue for `workerId` and returns them in claim order.
   * The run history gets its row when the attempt ends (RunStatements.record); until then the
   * job row is the record of the running attempt. Must run inside a write transaction.
   *
   * `room`, when given, is the weight the claim may take at most (the queue's concurrency or the
   * claimer's capacity left): the claim takes the longest prefix of the claim order that fits.
   * Unlike PostgreSQL, a `peeked` share is taken as it is, without the room: nothing can change
   * between the peek and the claim inside the transaction, so the share already fits, and the
   * statements without the weight run.
   */
  claimJobs(p: ClaimJobs): ClaimedJobs {
    const { queue, kinds, limit, workerId, now, budget } = p;
    const room = p.peeked ? null : p.room;
    const include = 'include' in kinds;
    const budgeted = limit > UNBUDGETED_CLAIM_MAX || budget < CLAIM_ANSWER_BUDGET;
    const weighted = room !== null;
    const single = limit === 1;
    const readBack = claimReadBack(p.fields);
    // A single claim bounded by weight, or a claim of a batch: the budget's running sum goes with the weight's.
    const stmt = this.claimStatement({ include, single: weighted ? single : single && !budgeted, budgeted: !weighted && budgeted, weighted }, readBack);
    const list = include ? kinds.include : kinds.exclude;
    this.delayed.noteWrite(now);
    const rows = stmt.all({ queue, now, limit, workerId, kinds: JSON.stringify(list), ...(weighted ? (limit === 1 ? { room } : { room, budget }) : budgeted ? { budget } : {}) });
    let chars = 0;
    for (const row of rows) chars += text(row, 'payload').length + (textOrNull(row, 'checkpoint')?.length ?? 0);
    // SET expressions read the row as it was, so claimed_from holds the state each job left.
    let fromRetrying = 0;
    for (const row of rows) if (text(row, 'claimed_from') === 'retrying') fromRetrying += 1;
    this.counts.add(queue, 'queued', -(rows.length - fromRetrying));
    this.counts.add(queue, 'retrying', -fromRetrying);
    this.counts.add(queue, 'running', rows.length);
    const jobs = readBack === null ? rows.map(mapJob) : rows.map((row) => mapClaimedJob(row, readBack, now, workerId));
    let extraWeight = 0;
    for (const job of jobs) extraWeight += job.weight - 1;
    this.counts.runningWeight(queue, extraWeight);
    // RETURNING gives rows in the order they were updated, which SQLite does not promise to be
    // the subquery's order.
    return { jobs: jobs.sort(compareClaimOrder), chars };
  }

  /**
   * The next `room` due jobs of each queue in claim order, without claiming them: one bounded
   * walk of jobs_claim per queue (unlike PostgreSQL's one statement for all: a statement here
   * costs no round trip).
   */
  claimPeek(p: { queues: readonly { name: string; room: number }[]; kinds: KindFilter; now: number }): ClaimCandidate[] {
    const stmt = 'include' in p.kinds ? this.peekInclude : this.peekExclude;
    const kinds = JSON.stringify('include' in p.kinds ? p.kinds.include : p.kinds.exclude);
    const candidates: ClaimCandidate[] = [];
    for (const { name: queue, room } of p.queues) {
      for (const raw of stmt.all({ queue, now: p.now, limit: room, kinds })) {
        const row = toRow(raw, 'claim candidate');
        candidates.push({ queue, weight: int(row, 'weight'), priority: int(row, 'priority'), runAt: int(row, 'run_at'), id: text(row, 'id') });
      }
    }
    return candidates;
  }
}
