/**
 * Hearing what other daemons on the same database did: the feed behind wakeups and events
 * across daemons.
 *
 * - With LISTEN (the default): a dedicated connection (not one of the pool's: a pooled
 *   connection is handed to any transaction, and LISTEN belongs to a session) listens on
 *   CHANNEL. A notice from another daemon wakes this daemon's claims for the queues it names at
 *   once, delivers queue changes, and — only while something here wants job events — reads the
 *   changed jobs back and delivers them as remote job changes. When the server goes away the
 *   connection is made again with backoff; once back, every queue is woken and the job changes
 *   missed meanwhile are read back, since notifications sent while nobody listened are lost.
 *   A check every few seconds (`fallbackMs`) wakes queues with due jobs regardless, in case a
 *   notice was lost some other way.
 * - Poll-only (`poll`), for a transaction pooler such as PgBouncer in transaction mode, where a
 *   LISTEN lands on whichever server connection the pooler picks and hears nothing: no listening
 *   connection; every `pollMs` the same due-job check wakes claims, and, while something wants
 *   job events, the jobs updated since the last poll are read and delivered.
 *
 * Reading changed jobs back costs a query per notice; with three daemons each reading back what
 * the other two did, a drain's throughput would halve, hence `wantsRemoteJobs`.
 *
 * Output lines: a daemon that stores a batch of a job's lines says so in its notice (the job, its
 * queue, the first line's seq). A daemon where someone follows that job (`wantsRemoteOutput`)
 * reads the new lines back, one query per batch, and delivers them as output; the others do
 * nothing. A daemon that polls hears no notices: its followers see the lines when they read the
 * output again (at the job's end, `spool logs -f` does).
 */
import pg from 'pg';
import type { Job } from '../../../shared/protocol/types';
import type { ChangeRecorder } from '../store';
import { mapJob, mapOutputLine } from '../mappers';
import { text, toRow } from '../rows';
import type { TxChanges } from './db';
import { CHANNEL, decodeNotice, type Notice } from './notice';
import { JOB_COLUMNS } from './jobs';

export interface FeedOptions {
  /** Poll instead of LISTEN (transaction poolers). */
  poll: boolean;
  /** How often poll-only mode polls. */
  pollMs: number;
  /** How often the due-job check runs beside LISTEN. */
  fallbackMs: number;
}

/** Reconnecting the listener: from this delay, doubled after each failure, up to the maximum. */
const RECONNECT_FIRST_MS = 100;
const RECONNECT_MAX_MS = 5000;
/**
 * Read-backs start this far before the last time known: an update commits a moment after its
 * updated_at was taken, and daemons' clocks differ a little. Duplicates this brings are dropped.
 */
const SLACK_MS = 1000;
/** Rows per read-back query, and pages per read-back: a backlog of changes is bounded. */
const PAGE = 500;
const MAX_PAGES = 10;
/** Jobs remembered as delivered (id → version), to drop the same version read back twice. */
const SEEN_MAX = 20_000;
/** Output lines per read-back query. */
const OUTPUT_PAGE = 1000;

export class ChangeFeed {
  private closed = false;
  private listener: pg.Client | null = null;
  private reconnectDelay = RECONNECT_FIRST_MS;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private checkTimer: NodeJS.Timeout | null = null;
  /** When the listener was lost (this daemon's clock); null while it listens or before it first did. */
  private lostAt: number | null = null;
  /** Job versions delivered (or made here), oldest first. */
  private readonly seen = new Map<string, string>();
  /** Read-backs waiting: job ids, queues with the earliest time, or every job since a time. */
  private readonly wantIds = new Set<string>();
  private readonly wantQueues = new Map<string, number>();
  private wantAllSince: number | null = null;
  private reading: Promise<void> | null = null;
  /** Output to read back: job id → its queue and the first seq wanted. */
  private readonly wantOutput = new Map<string, { queue: string; from: number }>();
  /** The last output seq delivered per followed job (bounded like `seen`): a line is never delivered twice. */
  private readonly outputSeq = new Map<string, number>();
  private readingOutput: Promise<void> | null = null;
  /** Poll-only: where the next read of changed jobs starts. */
  private pollSince: number;
  /** How many times the listener has (re)connected and listens: tests wait on it. */
  connections = 0;

  constructor(
    private readonly url: string,
    private readonly pool: pg.Pool,
    /** The engine's clock (injected by tests). */
    private readonly now: () => number,
    private readonly recorder: ChangeRecorder,
    /** This store's id in notices: what it hears from itself it ignores. */
    readonly instanceId: string,
    private readonly options: FeedOptions,
  ) {
    this.pollSince = now() - SLACK_MS;
  }

  start(): void {
    if (!this.options.poll) void this.connect();
    this.scheduleCheck();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    if (this.checkTimer) clearTimeout(this.checkTimer);
    const listener = this.listener;
    this.listener = null;
    await listener?.end().catch(() => undefined);
    await this.reading?.catch(() => undefined);
    await this.readingOutput?.catch(() => undefined);
  }

  /** True while the listener listens (poll-only: never). */
  get listening(): boolean {
    return this.listener !== null;
  }

  /**
   * Jobs this daemon just committed: marked as seen, so that a read-back (poll-only mode, or a
   * catch-up after a reconnect) does not deliver them again as another daemon's changes.
   */
  noteLocal(changes: TxChanges): void {
    if (this.recorder.wantsRemoteJobs?.() !== true) return;
    for (const job of changes.changedJobs.values()) this.remember(job);
  }

  // ------------------------------------------------------------------------------------------
  // The listener

  private async connect(): Promise<void> {
    this.reconnectTimer = null;
    if (this.closed) return;
    const client = new pg.Client({ connectionString: this.url, connectionTimeoutMillis: 5000, keepAlive: true });
    client.on('error', () => this.lost(client));
    client.on('end', () => this.lost(client));
    client.on('notification', (message) => {
      if (message.channel === CHANNEL && message.payload !== undefined) this.heard(message.payload);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANNEL}`);
    } catch {
      await client.end().catch(() => undefined);
      this.retry();
      return;
    }
    if (this.closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.listener = client;
    this.reconnectDelay = RECONNECT_FIRST_MS;
    this.connections += 1;
    if (this.lostAt !== null) {
      // Whatever was sent while nobody listened is gone: wake every queue, and read back the
      // job changes since the connection was lost.
      const since = this.lostAt - SLACK_MS;
      this.lostAt = null;
      this.recorder.wake?.(null);
      if (this.recorder.wantsRemoteJobs?.() === true) {
        this.wantAllSince = Math.min(this.wantAllSince ?? since, since);
        this.readBackSoon();
      }
    }
  }

  /** The listening connection failed or ended: connect again, after the backoff. */
  private lost(client: pg.Client): void {
    if (this.listener !== client) return;
    this.listener = null;
    this.lostAt = this.now();
    client.end().catch(() => undefined);
    this.retry();
  }

  private retry(): void {
    if (this.closed || this.reconnectTimer !== null) return;
    const delay = this.reconnectDelay;
    this.reconnectDelay = Math.min(RECONNECT_MAX_MS, delay * 2);
    this.reconnectTimer = setTimeout(() => void this.connect(), delay);
    this.reconnectTimer.unref();
  }

  private heard(payload: string): void {
    const notice = decodeNotice(payload);
    if (notice === null || notice.from === this.instanceId) return;
    this.act(notice);
  }

  private act(notice: Notice): void {
    const recorder = this.recorder;
    if (notice.all === true) recorder.wake?.(null);
    for (const [queue, due] of Object.entries(notice.wake)) recorder.wake?.(queue, due === 0 ? undefined : due, notice.kinds);
    const queues = Object.entries(notice.queues);
    const tokens = notice.tokens ?? [];
    if (queues.length > 0 || tokens.length > 0) {
      for (const [name, deleted] of queues) recorder.queue(name, deleted);
      for (const name of tokens) recorder.tokenRevoked?.(name);
      recorder.flush();
    }
    for (const [jobId, [queue, first]] of Object.entries(notice.output ?? {})) {
      if (recorder.wantsRemoteOutput?.(jobId, queue) !== true) continue;
      const known = this.wantOutput.get(jobId);
      this.wantOutput.set(jobId, { queue, from: Math.min(known?.from ?? first, first) });
    }
    if (this.wantOutput.size > 0) this.readOutputSoon();
    if (recorder.wantsRemoteJobs?.() !== true) return;
    const deleted = notice.deleted ?? [];
    if (deleted.length > 0) {
      for (const job of deleted) {
        this.seen.delete(job.id);
        recorder.remoteJob?.(job, true);
      }
      recorder.flush();
    }
    const since = (notice.since ?? this.now()) - SLACK_MS;
    if (notice.all === true) this.wantAllSince = Math.min(this.wantAllSince ?? since, since);
    for (const id of notice.jobs ?? []) this.wantIds.add(id);
    for (const queue of notice.jobsIn ?? []) this.wantQueues.set(queue, Math.min(this.wantQueues.get(queue) ?? since, since));
    this.readBackSoon();
  }

  // ------------------------------------------------------------------------------------------
  // Due-job check and polling

  private scheduleCheck(): void {
    if (this.closed) return;
    this.checkTimer = setTimeout(() => void this.check(), this.options.poll ? this.options.pollMs : this.options.fallbackMs);
    this.checkTimer.unref();
  }

  private async check(): Promise<void> {
    try {
      await this.wakeDue();
      if (this.options.poll && this.recorder.wantsRemoteJobs?.() === true) await this.pollChanges();
    } catch {
      // The server is away: requests report it, and the next check tries again.
    }
    this.scheduleCheck();
  }

  /**
   * Wakes the queues that have jobs due now. One index probe per unpaused queue (the claim
   * index), not a scan of the waiting jobs.
   */
  private async wakeDue(): Promise<void> {
    const result = await this.pool.query(
      `SELECT q.name FROM queues q
        WHERE q.paused = 0
          AND EXISTS (SELECT 1 FROM jobs j WHERE j.queue = q.name AND j.state IN ('queued', 'retrying') AND j.run_at <= $1)`,
      [this.now()],
    );
    for (const row of result.rows) this.recorder.wake?.(text(toRow(row, 'PostgreSQL'), 'name'));
  }

  /**
   * Poll-only: the jobs updated since the last poll. There is no index on updated_at (it would
   * cost every job update an index entry, on the hot path, for a mode few use), so this reads
   * the jobs table; it runs only while something here wants job events.
   */
  private async pollChanges(): Promise<void> {
    const jobs = await this.readPaged('updated_at >= $1', [], this.pollSince);
    let latest = this.pollSince + SLACK_MS;
    for (const job of jobs) latest = Math.max(latest, job.updatedAt);
    // A capped read moves on past what it read; otherwise the next poll reads the slack again.
    this.pollSince = jobs.length >= PAGE * MAX_PAGES ? latest : Math.max(this.pollSince, latest - SLACK_MS);
    this.deliver(jobs);
  }

  // ------------------------------------------------------------------------------------------
  // Reading changed jobs back

  private readBackSoon(): void {
    if (this.reading !== null || this.closed) return;
    this.reading = this.readBack()
      .catch(() => {
        // The server went away while reading: the reconnect's catch-up reads these changes again.
      })
      .finally(() => {
        this.reading = null;
        if (this.wantIds.size > 0 || this.wantQueues.size > 0 || this.wantAllSince !== null) this.readBackSoon();
      });
  }

  /** Reads what the notices asked for, in as few queries as there are kinds of asking. */
  private async readBack(): Promise<void> {
    const ids = [...this.wantIds];
    this.wantIds.clear();
    const queues = [...this.wantQueues];
    this.wantQueues.clear();
    const allSince = this.wantAllSince;
    this.wantAllSince = null;
    const jobs: Job[] = [];
    for (let i = 0; i < ids.length; i += PAGE) {
      const result = await this.pool.query(`SELECT ${JOB_COLUMNS} FROM jobs WHERE id = ANY($1::text[])`, [ids.slice(i, i + PAGE)]);
      for (const row of result.rows) jobs.push(mapJob(toRow(row, 'PostgreSQL')));
    }
    if (allSince !== null) jobs.push(...(await this.readPaged('updated_at >= $1', [], allSince)));
    else {
      for (const [queue, since] of queues) jobs.push(...(await this.readPaged('queue = $2 AND updated_at >= $1', [queue], since)));
    }
    if (this.closed || this.recorder.wantsRemoteJobs?.() !== true) return;
    this.deliver(jobs);
  }

  /** Jobs matching `where` (with $1 the time to start from), oldest update first, a bounded number of pages. */
  private async readPaged(where: string, values: unknown[], since: number): Promise<Job[]> {
    const jobs: Job[] = [];
    let from = since;
    for (let page = 0; page < MAX_PAGES; page += 1) {
      const result = await this.pool.query(`SELECT ${JOB_COLUMNS} FROM jobs WHERE ${where} ORDER BY updated_at, id LIMIT ${PAGE}`, [from, ...values]);
      const rows = result.rows.map((row: unknown) => mapJob(toRow(row, 'PostgreSQL')));
      jobs.push(...rows);
      const last = rows[rows.length - 1];
      if (rows.length < PAGE || last === undefined) break;
      // The next page starts at the last update time read (again: ties), or past it if a whole
      // page shared that one millisecond.
      from = last.updatedAt > from ? last.updatedAt : from + 1;
    }
    return jobs;
  }

  // ------------------------------------------------------------------------------------------
  // Reading output lines back, for a job someone here follows

  private readOutputSoon(): void {
    if (this.readingOutput !== null || this.closed) return;
    this.readingOutput = this.readOutput()
      .catch(() => {
        // The server went away: a follower reads the output again when it reconnects.
      })
      .finally(() => {
        this.readingOutput = null;
        if (this.wantOutput.size > 0) this.readOutputSoon();
      });
  }

  /** Reads the new lines of every job asked for, in seq order, and delivers them as output. */
  private async readOutput(): Promise<void> {
    const wanted = [...this.wantOutput];
    this.wantOutput.clear();
    for (const [jobId, { queue, from }] of wanted) {
      const after = Math.max(from - 1, this.outputSeq.get(jobId) ?? -1);
      const result = await this.pool.query(`SELECT * FROM job_output WHERE job_id = $1 AND seq > $2 ORDER BY seq LIMIT ${OUTPUT_PAGE}`, [jobId, after]);
      const lines = result.rows.map((row: unknown) => mapOutputLine(toRow(row, 'PostgreSQL')));
      const last = lines[lines.length - 1];
      if (last === undefined || this.closed) continue;
      this.outputSeq.delete(jobId);
      this.outputSeq.set(jobId, last.seq);
      if (this.outputSeq.size > SEEN_MAX) {
        const oldest = this.outputSeq.keys().next().value;
        if (oldest !== undefined) this.outputSeq.delete(oldest);
      }
      // A page full: there may be more; read on from the last line.
      if (lines.length >= OUTPUT_PAGE && !this.wantOutput.has(jobId)) this.wantOutput.set(jobId, { queue, from: last.seq + 1 });
      this.recorder.output(jobId, queue, lines);
      this.recorder.flush();
    }
  }

  /** Delivers the versions not delivered (nor made here) before, as remote job changes. */
  private deliver(jobs: readonly Job[]): void {
    let any = false;
    for (const job of jobs) {
      if (!this.remember(job)) continue;
      this.recorder.remoteJob?.(job);
      any = true;
    }
    if (any) this.recorder.flush();
  }

  /** Notes a job's version; false when it was noted already. */
  private remember(job: Job): boolean {
    const version = `${job.updatedAt}:${job.state}:${job.attempts}:${job.progress ?? ''}:${job.cancelRequested ? 1 : 0}`;
    if (this.seen.get(job.id) === version) return false;
    this.seen.delete(job.id);
    this.seen.set(job.id, version);
    if (this.seen.size > SEEN_MAX) {
      const oldest = this.seen.keys().next().value;
      if (oldest !== undefined) this.seen.delete(oldest);
    }
    return true;
  }
}
