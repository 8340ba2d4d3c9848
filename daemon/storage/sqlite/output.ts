/**
 * The output statements (../statements/output.ts) over job_output: lines of a job's output,
 * numbered per job by `seq` across attempts, capped per job. When the cap is passed, the oldest
 * lines are deleted and one marker line takes the seq of the newest deleted line, saying how
 * many were dropped in all.
 */
import type { OutputLine } from '../../../shared/protocol/types';
import type { Db } from './db';
import { mapOutputLine } from '../mappers';
import { int, toRow } from './row';
import type { OutputAppend, OutputSql } from '../statements/output';

export interface OutputState {
  seq: number;
  lines: number;
  dropped: number;
  /** The job's run count: the run its lines belong to now. */
  run: number;
}

export class OutputStatements implements OutputSql {
  private readonly stateStmt;
  private readonly insertStmt;
  private readonly setStateStmt;
  private readonly deleteMarkerStmt;
  private readonly oldestStmt;
  private readonly deleteUpToStmt;
  private readonly pageStmt;
  private readonly tailStmt;
  private readonly lastAtStmt;

  constructor(db: Db) {
    this.lastAtStmt = db.prepare('SELECT at FROM job_output WHERE job_id = @jobId ORDER BY seq DESC LIMIT 1').pluck();
    this.stateStmt = db.prepare('SELECT output_seq, output_lines, output_dropped, runs FROM jobs WHERE id = @jobId');
    this.insertStmt = db.prepare(`
      INSERT INTO job_output (job_id, seq, attempt, run, stream, text, at) VALUES (@jobId, @seq, @attempt, @run, @stream, @text, @at)`);
    this.setStateStmt = db.prepare(`
      UPDATE jobs SET output_seq = @seq, output_lines = @lines, output_dropped = @dropped WHERE id = @jobId`);
    this.deleteMarkerStmt = db.prepare(`DELETE FROM job_output WHERE job_id = @jobId AND stream = 'marker'`);
    this.oldestStmt = db.prepare(`
      SELECT seq FROM job_output WHERE job_id = @jobId AND stream <> 'marker' ORDER BY seq LIMIT 1 OFFSET @skip`).pluck();
    this.deleteUpToStmt = db.prepare(`DELETE FROM job_output WHERE job_id = @jobId AND seq <= @seq`);
    this.pageStmt = db.prepare('SELECT * FROM job_output WHERE job_id = @jobId AND seq > @after ORDER BY seq LIMIT +@limit');
    // The newest lines through the (job_id, seq) key backwards, then put back in order: reading a
    // 10,000-line job's last 200 lines touches 200 rows, not 10,000.
    this.tailStmt = db.prepare('SELECT * FROM (SELECT * FROM job_output WHERE job_id = @jobId ORDER BY seq DESC LIMIT +@last) ORDER BY seq');
  }

  private state(jobId: string): OutputState | undefined {
    const raw = this.stateStmt.get({ jobId });
    if (raw === undefined) return undefined;
    const row = toRow(raw, 'output state');
    return { seq: int(row, 'output_seq'), lines: int(row, 'output_lines'), dropped: int(row, 'output_dropped'), run: int(row, 'runs') };
  }

  /**
   * Unlike PostgreSQL, which inserts the lines with one statement over an array, SQLite inserts
   * them one by one through the prepared INSERT: a statement run costs a few microseconds
   * here, with no round trip to save. The lines belong to the job's current run (its last
   * claim); `attempt` is that run's attempt number.
   */
  outputAppend(p: OutputAppend): OutputLine[] {
    const { jobId, attempt, stream, lines: texts, now: at, cap } = p;
    const state = this.state(jobId);
    if (state === undefined) return [];
    const written: OutputLine[] = [];
    const run = Math.max(state.run, 1);
    let { seq, lines, dropped } = state;
    for (const text of texts) {
      seq += 1;
      this.insertStmt.run({ jobId, seq, attempt, run, stream, text, at });
      written.push({ seq, attempt, run, stream, text, at });
    }
    lines += texts.length;
    if (lines > cap) {
      const excess = lines - cap;
      const newestDropped = this.oldestStmt.get({ jobId, skip: excess - 1 });
      if (typeof newestDropped === 'number') {
        // Everything up to and including it goes, the old marker with it; the new marker
        // reuses its seq so that seq order still reads oldest to newest.
        this.deleteMarkerStmt.run({ jobId });
        this.deleteUpToStmt.run({ jobId, seq: newestDropped });
        dropped += excess;
        lines = cap;
        const marker: OutputLine = { seq: newestDropped, attempt, run, stream: 'marker', text: `[${dropped} older lines dropped]`, at };
        this.insertStmt.run({ jobId, ...marker });
        // Lines written now and already dropped are not reported.
        const kept = written.filter((line) => line.seq > newestDropped);
        written.length = 0;
        written.push(marker, ...kept);
      }
    }
    this.setStateStmt.run({ jobId, seq, lines, dropped });
    return written;
  }

  outputLastAt(jobId: string): number | undefined {
    const at: unknown = this.lastAtStmt.get({ jobId });
    return typeof at === 'number' ? at : undefined;
  }

  outputPage(p: { jobId: string; after: number; limit: number }): OutputLine[] {
    return this.pageStmt.all(p).map((raw) => mapOutputLine(toRow(raw, 'output line')));
  }

  outputTail(p: { jobId: string; last: number }): OutputLine[] {
    return this.tailStmt.all(p).map((raw) => mapOutputLine(toRow(raw, 'output line')));
  }
}
