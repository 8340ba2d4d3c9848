/**
 * The validation primitives live in shared/domain/validate.ts, one library with one wording for
 * the daemon, the jobs file and the language server. This re-export keeps the engine modules
 * outside validate/ (engine.ts, ops/schedules.ts) importing from where they did while they are
 * being reworked; new code imports shared/domain/validate directly.
 */
export * from '../../../shared/domain/validate';
