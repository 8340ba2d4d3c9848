/**
 * A real engine on a real SQLite file in a fresh temporary folder, with a clock and randomness
 * the test controls. Everything is removed when the test ends.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { TestContext } from 'node:test';
import type { Engine } from '../../../daemon/engine';
import type { SqliteBackend } from '../../../daemon/storage/sqlite/backend';
import { openSqliteEngine, type SqliteEngineOptions } from '../../helpers/sqliteEngine';

export class FakeClock {
  constructor(public ms = Date.UTC(2030, 0, 1)) {}
  readonly now = (): number => this.ms;
  advance(ms: number): void {
    this.ms += ms;
  }
}

export interface TestEngine {
  engine: Engine;
  /** The SQLite store under the engine, for tests that reach below the storage interface. */
  backend: SqliteBackend;
  clock: FakeClock;
  dir: string;
  dbPath: string;
  /** Sets what the injected random() returns next (default 0.5 = no jitter). */
  setRandom(value: number): void;
}

export function tempDir(t: TestContext, prefix = 'spool-unit-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
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

/** Runs fn and returns the SpoolError it throws or rejects with (fails the test if it succeeds). */
export async function thrown(fn: () => unknown): Promise<{ code: number; message: string; data: Record<string, unknown> }> {
  try {
    await fn();
  } catch (error) {
    if (error instanceof Error && 'code' in error && typeof error.code === 'number' && 'data' in error && typeof error.data === 'object' && error.data !== null) {
      return { code: error.code, message: error.message, data: { ...error.data } };
    }
    throw error;
  }
  throw new Error('expected the call to throw a SpoolError, and it returned normally');
}
