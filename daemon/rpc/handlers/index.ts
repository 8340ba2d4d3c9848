/** Every method's handler, in one table the compiler checks against the protocol's method table. */
import { GROUPED_METHOD_NAMES } from '../../../shared/protocol';
import { daemonHandlers } from './daemon';
import { jobHandlers } from './jobs';
import { queueHandlers } from './queues';
import { projectHandlers } from './projects';
import { scheduleHandlers } from './schedules';
import { tokenHandlers } from './tokens';
import type { MethodTable, Services } from './types';
import { workerHandlers } from './workers';
import { workflowHandlers } from './workflows';

export type { Services } from './types';

/**
 * Methods whose engine writes go through the group commit (Services.writes): those marked
 * `grouped: true` in the protocol's method table. Any other method first commits the group, so
 * requests keep their order.
 */
export const GROUPED_METHODS: ReadonlySet<string> = new Set(GROUPED_METHOD_NAMES);

/** The handlers of every method of the protocol's table: a method without one does not compile. */
export function methodTable(services: Services): MethodTable {
  return {
    ...daemonHandlers(services),
    ...jobHandlers(services),
    ...workerHandlers(services),
    ...queueHandlers(services),
    ...scheduleHandlers(services),
    ...projectHandlers(services),
    ...tokenHandlers(services),
    ...workflowHandlers(services),
  };
}
