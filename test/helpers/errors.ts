import assert from 'node:assert/strict';
import { SpoolError } from '../../shared/protocol/errors';

/** Awaits a call that must fail with a SpoolError of `code` (and `data.field`, when given); returns the error. */
export async function rejectsWith(promise: Promise<unknown>, code: number, field?: string): Promise<SpoolError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof SpoolError, `expected a SpoolError, got ${String(error)}`);
    assert.equal(error.code, code, `expected code ${code}, got ${error.code}: ${error.message}`);
    if (field !== undefined) assert.equal(error.data.field, field, `expected data.field ${field}: ${error.message}`);
    return error;
  }
  assert.fail(`expected an error with code ${code}`);
}
