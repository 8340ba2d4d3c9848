/**
 * The SQLite store's statement table (../statements/index.ts): its table classes' statements as
 * one object, by name, which the runner (./runner.ts) calls. TypeScript checks that together
 * they provide every statement.
 */
import type { SqliteDatabase } from './database';
import type { Statements } from '../statements';
import { bound } from './runner';

export function sqliteStatements(store: SqliteDatabase): Statements {
  return {
    ...bound(store.jobs),
    ...bound(store.dependencies),
    ...bound(store.runs),
    ...bound(store.list),
    ...bound(store.queues),
    ...bound(store.upkeep),
    ...bound(store.output),
    ...bound(store.schedules),
    ...bound(store.projects),
    ...bound(store.workflows),
    ...bound(store.workers),
    ...bound(store.daemons),
    ...bound(store.tokens),
    ...bound(store.unique),
    ...bound(store.claims),
    ...bound(store.history),
    ...bound(store.groups),
    ...bound(store.groupPrune),
  };
}
