/**
 * Statements of the attempts concern (see ./index.ts for the protocol): one method per statement,
 * synchronous as SQLite implements them; PostgreSQL implements each asynchronously.
 */

// eslint-disable-next-line @typescript-eslint/no-empty-interface
export interface AttemptSql {}
