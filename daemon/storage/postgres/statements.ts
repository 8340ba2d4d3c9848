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
import { runStatements } from './runs';

export const postgresStatements: AsyncStatements<PgTx> = {
  ...jobStatements,
  ...listStatements,
  ...queueStatements,
  ...attemptStatements,
  ...outputStatements,
  ...runStatements,
};
