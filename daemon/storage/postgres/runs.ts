/**
 * Statements over the run history and the finished figures of stats (../statements/runs.ts), in
 * PostgreSQL. As in SQLite (see ../sqlite/runs.ts for why), two kinds of attempt have no row in
 * job_runs: a running one, and a completed one while its job stays completed; `runsOfJob` puts
 * both back from the job row.
 */
import type { AsyncPart } from '../statements';
import type { RunSql } from '../statements/runs';
import type { PgTx } from './db';
import { keepCompleted, runsOf } from './ops/runs';

export const runStatements: AsyncPart<PgTx, RunSql> = {
  runsOfJob(tx, jobId) {
    return runsOf(tx, jobId);
  },

  runKeepCompleted(tx, jobId) {
    return keepCompleted(tx, jobId);
  },
};
