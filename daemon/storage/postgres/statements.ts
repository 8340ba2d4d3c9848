/**
 * The PostgreSQL store's statement table (../statements/index.ts): every file's statements as
 * one object, by name, which the runner (./runner.ts) awaits. TypeScript checks that together
 * they provide every statement.
 */
import type { AsyncStatements } from '../statements';
import type { PgTx } from './db';
import { attemptStatements, jobStatements } from './jobs';
import { listStatements } from './list';
import { queueStatements } from './queues';
import { outputStatements } from './output';
import { daemonStatements } from './daemons';
import { projectStatements } from './projects';
import { runStatements } from './runs';
import { scheduleStatements } from './schedules';
import { tokenStatements } from './tokens';
import { upkeepStatements } from './upkeep';
import { workerStatements } from './workers';

export const postgresStatements: AsyncStatements<PgTx> = {
  ...jobStatements,
  ...listStatements,
  ...attemptStatements,
  ...outputStatements,
  ...runStatements,
  ...queueStatements,
  ...scheduleStatements,
  ...projectStatements,
  ...upkeepStatements,
  ...workerStatements,
  ...daemonStatements,
  ...tokenStatements,
};
