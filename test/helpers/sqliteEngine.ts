/**
 * An engine over a SQLite file, as tests and fixture processes open one: the SQLite options
 * (the file, WAL checkpoints, durability) and the engine's injected clock and randomness in one
 * object.
 */
import { Engine } from '../../daemon/engine';
import { SqliteBackend, type SqliteOptions } from '../../daemon/storage/sqlite/backend';

export interface SqliteEngineOptions extends SqliteOptions {
  now?: () => number;
  random?: () => number;
}

export function sqliteEngine(options: SqliteEngineOptions): Engine {
  return openSqliteEngine(options).engine;
}

/** The engine and the SQLite store under it, for tests that reach below the storage interface. */
export function openSqliteEngine(options: SqliteEngineOptions): { engine: Engine; backend: SqliteBackend } {
  const { now, random, ...storage } = options;
  let backend: SqliteBackend | undefined;
  const engine = new Engine({
    storage: (policy, changes) => (backend = new SqliteBackend(storage, policy, changes)),
    ...(now === undefined ? {} : { now }),
    ...(random === undefined ? {} : { random }),
  });
  if (backend === undefined) throw new Error('the engine did not open its store');
  return { engine, backend };
}
