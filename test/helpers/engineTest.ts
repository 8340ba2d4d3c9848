/**
 * What engine tests share, whichever store they run on: a clock the test moves, a fresh
 * temporary folder removed when the test ends, and the SpoolError a call fails with.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { TestContext } from 'node:test';

export class FakeClock {
  constructor(public ms = Date.UTC(2030, 0, 1)) {}
  readonly now = (): number => this.ms;
  advance(ms: number): void {
    this.ms += ms;
  }
}

export function tempDir(t: TestContext, prefix = 'spool-unit-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
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
