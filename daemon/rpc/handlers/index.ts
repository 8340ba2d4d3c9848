/** Every method's handler, in one table the compiler checks against `Methods`. */
import { daemonHandlers } from './daemon';
import { jobHandlers } from './jobs';
import { queueHandlers } from './queues';
import { scheduleHandlers } from './schedules';
import type { MethodTable, Services } from './types';
import { workerHandlers } from './workers';

export type { Services } from './types';

/**
 * Methods whose engine writes go through the group commit (Services.writes). Any other method
 * first commits the group, so requests keep their order.
 */
export const GROUPED_METHODS: ReadonlySet<string> = new Set([
  'jobs.enqueue',
  'jobs.heartbeat',
  'jobs.progress',
  'jobs.checkpoint',
  'jobs.log',
  'jobs.complete',
  'jobs.fail',
  'jobs.release',
]);

export function methodTable(services: Services): MethodTable {
  return {
    ...daemonHandlers(services),
    ...jobHandlers(services),
    ...workerHandlers(services),
    ...queueHandlers(services),
    ...scheduleHandlers(services),
  };
}
