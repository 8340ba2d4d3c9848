/**
 * Migration 13: the counter trigger of an UPDATE without the join of its transition tables.
 *
 * An UPDATE keeps every row's id, so the rows before (`old_rows`) and after (`new_rows`) are the
 * same jobs, and a queue and state's net change is how many of the after rows it holds less how
 * many of the before rows: a row whose state did not change adds one and takes one, and nets to
 * zero. Each transition table is read once and grouped, where migration 1 joined them twice by id
 * (two hash joins over every moved row, per claim and per completion).
 */
export const postgresCheaperCounts = `
CREATE OR REPLACE FUNCTION spool_count_jobs() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO queue_counts AS c (queue, state, shard, count)
      SELECT queue, state, pg_backend_pid() % 64, count(*) FROM new_rows GROUP BY queue, state ORDER BY queue, state
      ON CONFLICT (queue, state, shard) DO UPDATE SET count = c.count + EXCLUDED.count;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO queue_counts AS c (queue, state, shard, count)
      SELECT queue, state, pg_backend_pid() % 64, -count(*) FROM old_rows GROUP BY queue, state ORDER BY queue, state
      ON CONFLICT (queue, state, shard) DO UPDATE SET count = c.count + EXCLUDED.count;
  ELSE
    INSERT INTO queue_counts AS c (queue, state, shard, count)
      SELECT queue, state, pg_backend_pid() % 64, sum(delta) FROM (
        SELECT queue, state, -count(*) AS delta FROM old_rows GROUP BY queue, state
        UNION ALL
        SELECT queue, state, count(*) AS delta FROM new_rows GROUP BY queue, state
      ) moved GROUP BY queue, state HAVING sum(delta) <> 0 ORDER BY queue, state
      ON CONFLICT (queue, state, shard) DO UPDATE SET count = c.count + EXCLUDED.count;
  END IF;
  RETURN NULL;
END
$fn$;
`;
