/**
 * What a worker's handler came to, as the daemon is told it: the params of a `jobs.fail` for a
 * thrown error, and which refusals of a `jobs.complete` mean the result itself can never be
 * recorded. Used by the worker helper (worker.ts).
 */
import { SpoolError } from '../protocol/errors';
import { ErrorCode, LIMITS, type FailParams } from '../protocol';

export function failParams(ids: { id: string; workerId: string }, error: unknown): FailParams {
  if (error instanceof Error) {
    const permanent = 'permanent' in error && error.permanent === true;
    const exitCode = 'exitCode' in error && typeof error.exitCode === 'number' ? error.exitCode : undefined;
    const httpStatus = 'httpStatus' in error && typeof error.httpStatus === 'number' ? error.httpStatus : undefined;
    const retryAt = !permanent && 'retryAt' in error && typeof error.retryAt === 'number' ? error.retryAt : undefined;
    return {
      ...ids,
      error: error.message || error.name,
      ...(error.stack ? { stack: error.stack } : {}),
      ...(permanent ? { permanent } : {}),
      ...(exitCode !== undefined ? { exitCode } : {}),
      ...(httpStatus !== undefined ? { httpStatus } : {}),
      ...(retryAt !== undefined ? { retryAt } : {}),
    };
  }
  return { ...ids, error: typeof error === 'string' ? error : (JSON.stringify(error) ?? String(error)) };
}

export function isLeaseLost(error: unknown): boolean {
  return error instanceof SpoolError && error.code === ErrorCode.LeaseLost;
}

/**
 * Whether the daemon refused a `jobs.complete` because of what was sent (the result is too
 * large or not valid). Not a refusal: a lost lease or a deleted job (there is nothing left to
 * fail), an internal error, which is also how a lost connection or a timeout arrives and says
 * nothing about the result (the daemon may even have recorded the completion), and a store that
 * could not take the write (StoreUnavailable, StorageFull), which says nothing about it either.
 */
export function isRefusal(error: Error): boolean {
  if (!(error instanceof SpoolError)) return false;
  return !NOT_ABOUT_THE_RESULT.has(error.code);
}

const NOT_ABOUT_THE_RESULT: ReadonlySet<number> = new Set([ErrorCode.LeaseLost, ErrorCode.JobNotFound, ErrorCode.InternalError, ErrorCode.StoreUnavailable, ErrorCode.StorageFull]);

/** The daemon could not reach its database (PostgreSQL restarting, say): the same call may work shortly. */
export function isStoreUnavailable(error: unknown): boolean {
  return error instanceof SpoolError && error.code === ErrorCode.StoreUnavailable;
}

/**
 * Why a handler's result cannot go in a request at all, or null if it can. JSON.stringify
 * throws on a BigInt or a cycle, and a result longer than a request line would make the daemon
 * close the connection rather than answer, so both are caught here. A result over the payload
 * limit but within a line is sent, and the daemon's refusal says what the limit is.
 */
export function unsendable(result: unknown): string | null {
  let text: string | undefined;
  try {
    text = JSON.stringify(result);
  } catch (error) {
    return `The result cannot be sent as JSON: ${asError(error).message}. Return only JSON values (strings, numbers, booleans, null, arrays and plain objects).`;
  }
  const bytes = text === undefined ? 0 : Buffer.byteLength(text, 'utf8');
  if (bytes > LIMITS.maxLineBytes) {
    return `The result is ${bytes} bytes as JSON, more than a request may carry (${LIMITS.maxLineBytes} bytes; a result may have ${LIMITS.maxPayloadBytes}). Store large data elsewhere and return a reference.`;
  }
  return null;
}

export function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
