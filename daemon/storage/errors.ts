/** Moved to daemon/engine/errors.ts: operations, written once in the engine, throw these refusals. */
export * from '../engine/errors';
