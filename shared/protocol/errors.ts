/**
 * The one error type Spool's own code throws. It carries a JSON-RPC code and `data` naming what
 * is at fault, so the daemon can put it on the wire unchanged and a client can rebuild it.
 */
import { ErrorCode, type ErrorData } from '.';

export class SpoolError extends Error {
  override readonly name = 'SpoolError';

  constructor(
    readonly code: number,
    message: string,
    readonly data: ErrorData = {},
  ) {
    super(message);
  }

  toJSON(): { code: number; message: string; data: ErrorData } {
    return { code: this.code, message: this.message, data: this.data };
  }
}

/** An input was of the wrong type, out of range, unknown, or missing. */
/**
 * A name from the caller (a field, a variable, a header) as error messages and `data.field` show
 * it: cut after 128 characters, so that a hostile 5 MB key does not come back as a 10 MB error.
 */
export function clipName(name: string): string {
  return name.length > 128 ? `${name.slice(0, 128)}…` : name;
}

export function invalidParams(field: string, message: string, allowed?: string): SpoolError {
  const data: ErrorData = { field: clipName(field) };
  if (allowed !== undefined) data.allowed = allowed;
  return new SpoolError(ErrorCode.InvalidParams, message, data);
}

export function jobNotFound(id: string): SpoolError {
  return new SpoolError(ErrorCode.JobNotFound, `No job with id ${id}. List jobs with \`spool jobs\`.`, { id });
}

export function isSpoolError(error: unknown): error is SpoolError {
  return error instanceof SpoolError;
}

/** What was thrown, as text: an Error's message, or the value itself (a rejection need not be an Error). */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
