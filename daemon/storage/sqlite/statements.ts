/**
 * The SQLite store's statement table (../statements/index.ts): its table classes' statements as
 * one object, by name, which the runner (./runner.ts) calls. TypeScript checks that together
 * they provide every statement.
 */
import type { Store } from '.';
import type { Statements } from '../statements';
import { bound } from './runner';

export function sqliteStatements(store: Store): Statements {
  return {
    ...bound(store.jobs),
    ...bound(store.runs),
    ...bound(store.queues),
    ...bound(store.claims),
    ...bound(store.workers),
    ...bound(store.schedules),
  };
}
