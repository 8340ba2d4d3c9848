/**
 * The PostgreSQL store's statement table (../statements/index.ts): every file's statements as
 * one object, by name, which the runner (./runner.ts) awaits. TypeScript checks that together
 * they provide every statement.
 */
import type { AsyncStatements } from '../statements';
import type { PgTx } from './db';
import { attemptStatements, jobStatements } from './jobs';
import { claimStatements } from './claim';
import { daemonStatements } from './daemons';
import { dependencyStatements } from './dependencies';
import { historyStatements } from './history';
import { groupStatements } from './groups';
import { groupPruneStatements } from './groupPrune';
import { listStatements } from './list';
import { outputStatements } from './output';
import { projectStatements } from './projects';
import { queueStatements } from './queues';
import { runStatements } from './runs';
import { scheduleStatements } from './schedules';
import { tokenStatements } from './tokens';
import { uniqueStatements } from './unique';
import { upkeepStatements } from './upkeep';
import { workerStatements } from './workers';
import { workflowStatements } from './workflows';

export const postgresStatements: AsyncStatements<PgTx> = {
  ...attemptStatements,
  ...jobStatements,
  ...claimStatements,
  ...daemonStatements,
  ...dependencyStatements,
  ...historyStatements,
  ...groupStatements,
  ...groupPruneStatements,
  ...listStatements,
  ...outputStatements,
  ...projectStatements,
  ...queueStatements,
  ...runStatements,
  ...scheduleStatements,
  ...tokenStatements,
  ...uniqueStatements,
  ...upkeepStatements,
  ...workerStatements,
  ...workflowStatements,
};
