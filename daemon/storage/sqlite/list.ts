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
import type { JobOrder } from '../../../shared/protocol';
import { JOB_STATES, type Job } from '../../../shared/protocol/types';
import type { Db } from './db';
import { mapJob } from '../mappers';
import { ArrayRows, scalarText } from './row';
import type { JobListQuery, ListSql } from '../statements/list';

/** Escapes LIKE wildcards so a search for "50%" finds "50%". */
function likePattern(search: string): string {
  return `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

function compareIn(order: JobOrder): (a: Job, b: Job) => number {
  const byId = (a: Job, b: Job): number => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  if (order === 'newest') return (a, b) => byId(b, a);
  if (order === 'oldest') return byId;
  return (a, b) => a.runAt - b.runAt || byId(a, b);
}

export class ListStatements implements ListSql {
  private readonly cache = new Map<string, ArrayRows>();
  private readonly queueNames;

  constructor(private readonly db: Db) {
    this.queueNames = db.prepare<[]>('SELECT name FROM queues').pluck();
  }

  /**
   * Up to `limit` jobs in order. Within one queue, several states (or all of them) are answered
   * as one `jobs_list (queue, state, id)` range per state, merged here: in id order each range is
   * already sorted and stops after `limit` rows, where a single query over the queue would sort
   * every job of the queue before returning the first page; in run-time order each state's
   * range is sorted on its own. Without a queue but with states (all dead jobs, say), the same
   * per queue and state: the alternative walks every job to find the few in those states.
   * Running jobs are read once for all queues through `jobs_lease`, which holds only them.
   */
  jobList(query: JobListQuery): Job[] {
    // A branch across every queue is one range of jobs_branch, smaller than any per-state split;
    // an id suffix is one pass over the ids, whatever else the filter says (see listOne). An
    // empty state list filters nothing (as listOne and PostgreSQL read it), so without a queue
    // it is not split either: split, it would be no part at all and list nothing.
    const perState =
      query.idSuffix === undefined &&
      (query.queue !== undefined ? query.states === undefined || query.states.length > 1 : query.states !== undefined && query.states.length > 0 && query.branch === undefined);
    if (!perState) return this.listOne(query);
    const parts: JobListQuery[] = [];
    let queues: string[] | undefined;
    for (const state of query.states ?? JOB_STATES) {
      if (query.queue !== undefined || state === 'running') parts.push({ ...query, states: [state] });
      else {
        queues ??= this.queueNames.all().map((name) => scalarText(name, 'queue name'));
        for (const queue of queues) parts.push({ ...query, queue, states: [state] });
      }
    }
    const merged = parts.flatMap((part) => this.listOne(part));
    merged.sort(compareIn(query.order));
    return merged.slice(0, query.limit);
  }

  private listOne(query: JobListQuery): Job[] {
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
export function listSql(query: JobListQuery): { sql: string; params: Record<string, string | number> } {
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
  if (query.branch !== undefined) {
    // The expression of the partial index jobs_branch (migration 9), written the same way so
    // that the planner can use it: a listing by branch alone reads only that branch's jobs.
    where.push(`json_extract(context, '$.branch') = @branch`);
    params['branch'] = query.branch;
  }
  if (query.group !== undefined) {
    where.push('group_key = @group');
    params['group'] = query.group;
  }
  if (query.idSuffix !== undefined) {
    // No index serves the end of an id: one on substr(id, -8) made every enqueue pay for an
    // insert at a random place in another B-tree (pipelined enqueues lost ~20 % of their speed,
    // measured with `npm run bench -- compare`), for a lookup a person makes by hand now and then.
    // The suffix is checked on every job's id instead: one pass, for a rare request.
    where.push('substr(id, -@idSuffixLength) = @idSuffix');
    params['idSuffixLength'] = query.idSuffix.length;
    params['idSuffix'] = query.idSuffix;
  }
  if (query.delayed !== undefined) {
    where.push(query.delayed ? `(state = 'queued' AND run_at > @now)` : `NOT (state = 'queued' AND run_at > @now)`);
    params['now'] = query.now;
  }
  if (query.olderThanMs !== undefined) {
    where.push('created_at < @now - @olderThanMs');
    params['now'] = query.now;
    params['olderThanMs'] = query.olderThanMs;
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
  const sql = `SELECT * FROM jobs ${index} ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY ${orderBy} LIMIT +@limit`;
  return { sql, params };
}
