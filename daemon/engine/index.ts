/**
 * The queue engine's public face: the Engine class, a factory, and the contract types.
 */
import type { EngineOptions } from './api';
import { Engine } from './engine';

export { Engine } from './engine';
export { BUILTIN_KINDS, QUEUE_DEFAULTS } from './defaults';
export { backoffDelay } from './backoff';
export type * from './api';

/** Opens the store (creating and migrating it if needed) through the options' factory and returns the engine over it. */
export function openEngine(options: EngineOptions): Engine {
  return new Engine(options);
}
