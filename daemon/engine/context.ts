/**
 * What every engine operation works with: the store, the clock, randomness, the id generator
 * and the event hub. Operations are plain functions over this context so that the Engine class
 * stays a thin, validated front door.
 */
import type { Store } from '../storage/sqlite';
import type { EventHub } from './events';
import type { UuidV7 } from './uuid';

export interface EngineContext {
  readonly store: Store;
  readonly now: () => number;
  readonly random: () => number;
  readonly ids: UuidV7;
  readonly events: EventHub;
}
