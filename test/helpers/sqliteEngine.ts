/**
 * An engine over a SQLite file, as tests and fixture processes open one: the SQLite options
 * (the file, WAL checkpoints, durability) and the engine's injected clock and randomness in one
 * object.
 */
import { Engine } from '../../daemon/engine';
import { SqliteStore, type SqliteOptions } from '../../daemon/storage/sqlite';

export interface SqliteEngineOptions extends SqliteOptions {
  now?: () => number;
  random?: () => number;
}

export function sqliteEngine(options: SqliteEngineOptions): Engine {
  return openSqliteEngine(options).engine;
}

/** The engine and the SQLite store under it, for tests that reach below the Store interface. */
export function openSqliteEngine(options: SqliteEngineOptions): { engine: Engine; backend: SqliteStore } {
  const { now, random, ...sqlite } = options;
  let backend: SqliteStore | undefined;
  const engine = new Engine({
    store: (changes, clock) => (backend = new SqliteStore(sqlite, changes, clock)),
    ...(now === undefined ? {} : { now }),
    ...(random === undefined ? {} : { random }),
  });
  if (backend === undefined) throw new Error('the engine did not open its store');
  return { engine, backend };
}
