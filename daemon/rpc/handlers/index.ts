/** Every method's handler, in one table the compiler checks against `Methods`. */
import { daemonHandlers } from './daemon';
import { jobHandlers } from './jobs';
import { queueHandlers } from './queues';
import { scheduleHandlers } from './schedules';
import type { MethodTable, Services } from './types';
import { workerHandlers } from './workers';

export type { Services } from './types';

export function methodTable(services: Services): MethodTable {
  return {
    ...daemonHandlers(services),
    ...jobHandlers(services),
    ...workerHandlers(services),
    ...queueHandlers(services),
    ...scheduleHandlers(services),
  };
}
