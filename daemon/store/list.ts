/**
 * Job listings: filters, three orders and keyset (cursor) pagination — a page starts after the
 * last row of the previous one by the order's key, so page 1,000 costs what page 1 costs
 * (no OFFSET scans).
 *
 * The SQL is assembled from fixed fragments by the filter's shape (which fields are present),
 * never from user text, and each shape's statement is prepared once and cached. Ids are UUIDv7,
 * so ordering by id is ordering by creation time and the `jobs_list (queue, state, id)` index
 * serves "newest first in a queue and state" directly.
 *
 * jobs_list leaves running jobs out (migration 4), so a query can use it only when it says so:
 * `state <> 'running'` is added whenever running is not asked for. Running jobs alone are read
 * through `jobs_lease`, which holds exactly them, and sorted: they are as few as the work in
 * progress.
 */
import { JOB_STATES, type Job, type JobState } from '../../shared/types';
import type { Db } from './db';
import { mapJob } from './mappers';
import { ArrayRows, scalarText } from './row';

export type ListOrder = 'newest' | 'oldest' | 'runAt';

/** Where the previous page ended. */
export type ListCursor = { id: string; runAt: number };

export interface ListQuery {
  queue?: string;
  states?: JobState[];
  kind?: string;
  tag?: string;
  search?: string;
  delayed?: boolean;
  order: ListOrder;
  limit: number;
  after?: ListCursor;
  now: number;
}


/** Escapes LIKE wildcards so a search for "50%" finds "50%". */
function likePattern(search: string): string {
  return `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

export class ListStatements {
  private readonly cache = new Map<string, ArrayRows>();
  private readonly queueNames;

  constructor(private readonly db: Db) {
    this.queueNames = db.prepare<[]>('SELECT name FROM queues').pluck();
  }

  /**
   * Up to `limit` jobs in order. Within one queue, newest/oldest first over several states (or
   * all of them) is answered as one `jobs_list (queue, state, id)` range per state, merged here
   * (O(states · limit) rows read, each range already in id order):
   * each range is already in id order and stops after `limit` rows, where a single query over the
   * queue would sort every job of the queue before returning the first page.
   */
  list(query: ListQuery): Job[] {
    if (query.order === 'runAt') return this.listOne(query);
    const byQueue = query.queue !== undefined && (query.states === undefined || query.states.length > 1);
    // Without a queue but with states (all dead jobs, say), the same per queue and state: the
    // alternative walks every job newest first to find the few in those states.
    const byQueueAndState = query.queue === undefined && query.states !== undefined;
    if (!byQueue && !byQueueAndState) return this.listOne(query);
    const queues = query.queue !== undefined ? [query.queue] : this.queueNames.all().map((name) => scalarText(name, 'queue name'));
    const states = query.states ?? JOB_STATES;
    const merged = queues.flatMap((queue) => states.flatMap((state) => this.listOne({ ...query, queue, states: [state] })));
    merged.sort(query.order === 'newest' ? (a, b) => (a.id < b.id ? 1 : -1) : (a, b) => (a.id < b.id ? -1 : 1));
    return merged.slice(0, query.limit);
  }

  private listOne(query: ListQuery): Job[] {
    const { sql, params } = listSql(query);
    let stmt = this.cache.get(sql);
    if (stmt === undefined) {
      stmt = new ArrayRows(this.db.prepare(sql), 'job');
      this.cache.set(sql, stmt);
    }
    return stmt.all(params).map(mapJob);
  }
}

/** The SELECT and its parameters for one listing (one queue and state at most, or any filter). */
export function listSql(query: ListQuery): { sql: string; params: Record<string, string | number> } {
  const where: string[] = [];
  const params: Record<string, string | number> = { limit: query.limit };
  if (query.queue !== undefined) {
    where.push('queue = @queue');
    params['queue'] = query.queue;
  }
  let index = '';
  if (query.states !== undefined && query.states.length > 0) {
    const onlyRunning = query.states.every((state) => state === 'running');
    if (onlyRunning) {
      index = 'INDEXED BY jobs_lease';
      where.push(`state = 'running'`);
    } else {
      const names = query.states.map((state, i) => {
        params[`state${i}`] = state;
        return `@state${i}`;
      });
      where.push(names.length === 1 ? `state = ${names[0]}` : `state IN (${names.join(', ')})`);
      if (!query.states.includes('running')) where.push(`state <> 'running'`);
    }
  }
  if (query.kind !== undefined) {
    where.push('kind = @kind');
    params['kind'] = query.kind;
  }
  if (query.tag !== undefined) {
    where.push('EXISTS (SELECT 1 FROM json_each(jobs.tags) WHERE value = @tag)');
    params['tag'] = query.tag;
  }
  if (query.search !== undefined) {
    where.push(`(payload LIKE @pattern ESCAPE '\\' OR last_error LIKE @pattern ESCAPE '\\')`);
    params['pattern'] = likePattern(query.search);
  }
  if (query.delayed !== undefined) {
    where.push(query.delayed ? `(state = 'queued' AND run_at > @now)` : `NOT (state = 'queued' AND run_at > @now)`);
    params['now'] = query.now;
  }
  if (query.after !== undefined) {
    params['afterId'] = query.after.id;
    if (query.order === 'newest') where.push('id < @afterId');
    else if (query.order === 'oldest') where.push('id > @afterId');
    else {
      where.push('(run_at > @afterRunAt OR (run_at = @afterRunAt AND id > @afterId))');
      params['afterRunAt'] = query.after.runAt;
    }
  }
  const orderBy = query.order === 'newest' ? 'id DESC' : query.order === 'oldest' ? 'id' : 'run_at, id';
  const sql = `SELECT * FROM jobs ${index} ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY ${orderBy} LIMIT @limit`;
  return { sql, params };
}
