/**
 * The tests' PostgreSQL: the throwaway server of scripts/pgServer.ts (the benchmark uses it too),
 * one per test process, with a database per test. No mock anywhere: every PostgreSQL test in the
 * suite talks to a real server.
 */
export { PgServer, pgBin, sharedPostgres } from '../../scripts/pgServer';
