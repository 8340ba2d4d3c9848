/** Placeholder for an operation not yet written for PostgreSQL (removed once every op exists). */
export function notImplemented(what: string, ..._args: unknown[]): never {
  throw new Error(`The PostgreSQL store does not implement ${what} yet`);
}
