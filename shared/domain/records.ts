/**
 * The test every reader of untrusted JSON makes before it looks at fields: the wire's messages,
 * a jobs file, a language server's requests. It imports nothing, so that any layer can use it,
 * down to the files the protocol itself imports (shared/jobsfile/plan.ts).
 */

/** A JSON object: not null, not an array. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
