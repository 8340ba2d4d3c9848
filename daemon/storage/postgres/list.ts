/**
 * The job listing (../statements/list.ts), in PostgreSQL: filters, three orders and keyset
 * pagination, in one statement assembled from fixed fragments.
 */
import type { AsyncPart } from '../statements';
import type { ListSql } from '../statements/list';
import { mapJob } from '../mappers';
import type { PgTx } from './db';
import { JOB_COLUMNS } from './jobs';

/** Escapes LIKE wildcards so a search for "50%" finds "50%". */
function likePattern(search: string): string {
  return `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * Up to `limit` jobs in order, after the cursor (keyset pagination: page 1,000 costs what page 1
 * costs). The statement is assembled from fixed fragments by the filter's shape, never from
 * user text. Conditions are written as the partial indexes' predicates are (jobs_list leaves
 * running jobs out; jobs_branch holds jobs with a context), so the planner can use them.
 */
export const listStatements: AsyncPart<PgTx, ListSql> = {
  async jobList(tx, input) {
    const where: string[] = [];
    const values: unknown[] = [];
    const param = (value: unknown): string => {
      values.push(value);
      return `$${values.length}`;
    };
    if (input.queue !== undefined) where.push(`queue = ${param(input.queue)}`);
    if (input.states !== undefined && input.states.length > 0) {
      where.push(input.states.length === 1 ? `state = ${param(input.states[0])}` : `state = ANY(${param(input.states)}::text[])`);
      if (!input.states.includes('running')) where.push(`state <> 'running'`);
    }
    if (input.kind !== undefined) where.push(`kind = ${param(input.kind)}`);
    if (input.tag !== undefined) where.push(`(tags::jsonb) ? ${param(input.tag)}`);
    // ILIKE: SQLite's LIKE ignores the case of ASCII letters, and a search finds the same jobs
    // on either store (ILIKE folds other letters too, where SQLite's LIKE does not).
    if (input.search !== undefined) {
      const pattern = param(likePattern(input.search));
      where.push(`(payload ILIKE ${pattern} ESCAPE '\\' OR last_error ILIKE ${pattern} ESCAPE '\\')`);
    }
    if (input.branch !== undefined) where.push(`context IS NOT NULL AND ((context::jsonb) ->> 'branch') = ${param(input.branch)}`);
    if (input.group !== undefined) where.push(`group_key = ${param(input.group)}`);
    if (input.idSuffix !== undefined) where.push(`right(id, ${input.idSuffix.length}) = ${param(input.idSuffix)}`);
    if (input.delayed !== undefined) {
      const now = param(input.now);
      where.push(input.delayed ? `(state = 'queued' AND run_at > ${now})` : `NOT (state = 'queued' AND run_at > ${now})`);
    }
    if (input.olderThanMs !== undefined) where.push(`created_at < ${param(input.now - input.olderThanMs)}`);
    if (input.after !== undefined) {
      const afterId = param(input.after.id);
      if (input.order === 'newest') where.push(`id < ${afterId}`);
      else if (input.order === 'oldest') where.push(`id > ${afterId}`);
      else where.push(`(run_at, id) > (${param(input.after.runAt)}, ${afterId})`);
    }
    const orderBy = input.order === 'newest' ? 'id DESC' : input.order === 'oldest' ? 'id' : 'run_at, id';
    const rows = await tx.rows(
      `SELECT ${JOB_COLUMNS} FROM jobs ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY ${orderBy} LIMIT ${param(input.limit)}`,
      values,
    );
    return rows.map(mapJob);
  },
};
