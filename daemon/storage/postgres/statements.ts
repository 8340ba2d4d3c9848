/**
 * The PostgreSQL store's statement table (../statements/index.ts): every file's statements as
 * one object, by name, which the runner (./runner.ts) awaits. TypeScript checks that together
 * they provide every statement.
 */
import type { AsyncStatements } from '../statements';
import type { PgTx } from './db';
import { attemptStatements, jobStatements } from './jobs';
import { outputStatements } from './output';
import { runStatements } from './runs';

export const postgresStatements: AsyncStatements<PgTx> = {
  ...jobStatements,
  ...attemptStatements,
  ...outputStatements,
  ...runStatements,
};
