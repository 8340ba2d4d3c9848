/**
 * A real engine on a real SQLite file in a fresh temporary folder, with a clock and randomness
 * the test controls. Everything is removed when the test ends.
 */
import * as path from 'node:path';
import type { TestContext } from 'node:test';
import type { Engine } from '../../../daemon/engine';
import type { SqliteStore } from '../../../daemon/storage/sqlite';
import { FakeClock, tempDir } from '../../helpers/engineTest';
import { openSqliteEngine, type SqliteEngineOptions } from '../../helpers/sqliteEngine';

export { FakeClock, tempDir, thrown } from '../../helpers/engineTest';

export interface TestEngine {
  engine: Engine;
  /** The SQLite store under the engine, for tests that reach below the storage interface. */
  backend: SqliteStore;
  clock: FakeClock;
  dir: string;
  dbPath: string;
  /** Sets what the injected random() returns next (default 0.5 = no jitter). */
  setRandom(value: number): void;
}

export function makeEngine(t: TestContext, options: Partial<SqliteEngineOptions> = {}): TestEngine {
  const dir = tempDir(t);
  const dbPath = path.join(dir, 'spool.db');
  const clock = new FakeClock();
  let random = 0.5;
  const { engine, backend } = openSqliteEngine({ dbPath, now: clock.now, random: () => random, ...options });
  t.after(() => engine.close());
  return {
    engine,
    backend,
    clock,
    dir,
    dbPath,
    setRandom: (value: number) => {
      random = value;
    },
  };
}

