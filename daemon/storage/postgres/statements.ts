/**
 * The PostgreSQL store's statement table (../statements/index.ts): every file's statements as
 * one object, by name, which the runner (./runner.ts) awaits. TypeScript checks that together
 * they provide every statement.
 */
import type { AsyncStatements } from '../statements';
import type { PgTx } from './db';
import { jobStatements } from './jobs';
import { runStatements } from './runs';
import { queueStatements } from './queues';
import { claimStatements } from './claim';
import { workerStatements } from './workers';
import { scheduleStatements } from './schedules';

export const postgresStatements: AsyncStatements<PgTx> = {
  ...jobStatements,
  ...runStatements,
  ...queueStatements,
  ...claimStatements,
  ...workerStatements,
  ...scheduleStatements,
};
