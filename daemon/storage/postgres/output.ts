/**
 * Statements over job_output (../statements/output.ts), in PostgreSQL: a job's output lines,
 * numbered per job from its output_seq, capped per job with a marker line (as in SQLite, see
 * ../sqlite/output.ts).
 */
import type { OutputLine } from '../../../shared/protocol/types';
import type { AsyncPart } from '../statements';
import type { OutputSql } from '../statements/output';
import { mapOutputLine } from '../mappers';
import { int, intOrNull } from '../rows';
import type { PgTx } from './db';

export const outputStatements: AsyncPart<PgTx, OutputSql> = {
  /**
   * Unlike SQLite, which runs its prepared INSERT once a line, the lines go in with one INSERT
   * over an array (a round trip saved per line). Past the cap, the oldest go, and one marker
   * line takes the seq of the newest line dropped, saying how many were dropped in all.
   */
  async outputAppend(tx, p) {
    const { jobId, attempt, stream, lines: texts, now: at, cap } = p;
    const state = await tx.row('SELECT output_seq, output_lines, output_dropped, runs FROM jobs WHERE id = $1', [jobId]);
    if (!state) return [];
    const run = Math.max(int(state, 'runs'), 1);
    const first = int(state, 'output_seq') + 1;
    let lines = int(state, 'output_lines') + texts.length;
    let dropped = int(state, 'output_dropped');
    const seq = first + texts.length - 1;
    let written: OutputLine[] = texts.map((t, i) => ({ seq: first + i, attempt, run, stream, text: t, at }));
    await tx.run(
      `INSERT INTO job_output (job_id, seq, attempt, run, stream, text, at)
       SELECT $1, $2 + ord - 1, $3, $4, $5, line, $6 FROM unnest($7::text[]) WITH ORDINALITY AS t(line, ord)`,
      [jobId, first, attempt, run, stream, at, texts],
    );
    if (lines > cap) {
      const excess = lines - cap;
      const newest = await tx.row(`SELECT seq FROM job_output WHERE job_id = $1 AND stream <> 'marker' ORDER BY seq LIMIT 1 OFFSET $2`, [jobId, excess - 1]);
      if (newest) {
        const newestDropped = int(newest, 'seq');
        // Everything up to and including it goes, the old marker with it; the new marker reuses
        // its seq so that seq order still reads oldest to newest.
        await tx.run(`DELETE FROM job_output WHERE job_id = $1 AND (seq <= $2 OR stream = 'marker')`, [jobId, newestDropped]);
        dropped += excess;
        lines = cap;
        const marker: OutputLine = { seq: newestDropped, attempt, run, stream: 'marker', text: `[${dropped} older lines dropped]`, at };
        await tx.run(`INSERT INTO job_output (job_id, seq, attempt, run, stream, text, at) VALUES ($1, $2, $3, $4, 'marker', $5, $6)`, [
          jobId,
          marker.seq,
          attempt,
          run,
          marker.text,
          at,
        ]);
        // Lines written now and already dropped are not reported.
        written = [marker, ...written.filter((line) => line.seq > newestDropped)];
      }
    }
    await tx.run('UPDATE jobs SET output_seq = $2, output_lines = $3, output_dropped = $4 WHERE id = $1', [jobId, seq, lines, dropped]);
    return written;
  },

  async outputLastAt(tx, jobId) {
    const row = await tx.row('SELECT at FROM job_output WHERE job_id = $1 ORDER BY seq DESC LIMIT 1', [jobId]);
    return row === undefined ? undefined : (intOrNull(row, 'at') ?? undefined);
  },

  async outputPage(tx, p) {
    return (await tx.rows('SELECT * FROM job_output WHERE job_id = $1 AND seq > $2 ORDER BY seq LIMIT $3', [p.jobId, p.after, p.limit])).map(mapOutputLine);
  },

  async outputTail(tx, p) {
    // The newest lines through the (job_id, seq) key backwards, then put back in order.
    return (await tx.rows('SELECT * FROM (SELECT * FROM job_output WHERE job_id = $1 ORDER BY seq DESC LIMIT $2) t ORDER BY seq', [p.jobId, p.last])).map(mapOutputLine);
  },
};
