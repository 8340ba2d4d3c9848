/**
 * The row a new job is inserted as. In a module of its own because both the statements
 * (jobs.ts) and the row mappers (mappers.ts) need it, and jobs.ts imports the mappers.
 */

/** The stored form of a new job: JSON already serialized, defaults already resolved. */
export interface JobInsert {
  id: string;
  queue: string;
  kind: string;
  payload: string;
  priority: number;
  weight: number;
  runAt: number;
  maxAttempts: number;
  backoffStrategy: string;
  backoffBaseMs: number;
  backoffCapMs: number;
  backoffJitter: number;
  timeoutMs: number;
  idempotencyKey: string | null;
  tags: string;
  context: string | null;
  now: number;
}
