/**
 * What every SQLite operation works with: the store's statements, the engine's policy and the
 * recorder of what changed. Operations are plain functions over this context, run by
 * SqliteBackend inside its transactions.
 */
import type { Store } from '..';
import type { ChangeRecorder, StoragePolicy } from '../../backend';

export interface SqliteContext {
  readonly store: Store;
  readonly policy: StoragePolicy;
  /** The policy's clock, read once per statement that needs the time. */
  readonly now: () => number;
  readonly events: ChangeRecorder;
}
