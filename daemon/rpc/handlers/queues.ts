/** Handlers of queues.* and stats.get. */
import type { ConfigureQueueParams, DeleteQueueParams, PurgeQueueParams, QueueGroupsParams, StatsHistoryParams } from '../../../shared/protocol';
import { unvalidated } from '../unvalidated';
import { nonEmptyString, object } from '../../../shared/domain/validate';
import type { HandlerGroup, Services } from './types';

type QueueMethods =
  | 'queues.list'
  | 'queues.get'
  | 'queues.groups'
  | 'queues.configure'
  | 'queues.pause'
  | 'queues.resume'
  | 'queues.purge'
  | 'queues.delete'
  | 'stats.get'
  | 'stats.history';

function queueName(params: unknown): string {
  return nonEmptyString(object(params, 'params', ['name'])['name'], 'name');
}

export function queueHandlers(s: Services): HandlerGroup<QueueMethods> {
  const { engine } = s;
  return {
    'queues.list': async (params) => {
      object(params, 'params', []);
      return { queues: await engine.listQueues() };
    },
    'queues.get': async (params) => ({ queue: await engine.getQueue(queueName(params)) }),
    'queues.groups': (params) => engine.queueGroups(unvalidated<QueueGroupsParams>(params)),
    'queues.configure': async (params) => {
      const queue = await engine.configureQueue(unvalidated<ConfigureQueueParams>(params));
      // A queue's ageing set or changed: its jobs count it from the next pass, run now.
      if (Reflect.get(Object(params), 'ageing') !== undefined) s.upkeep.ageSoon();
      return { queue };
    },
    'queues.pause': async (params) => ({ queue: await engine.pauseQueue(queueName(params)) }),
    'queues.resume': async (params) => ({ queue: await engine.resumeQueue(queueName(params)) }),
    'queues.purge': async (params) => ({ deleted: await engine.purgeQueue(unvalidated<PurgeQueueParams>(params)) }),
    'queues.delete': async (params) => ({ deleted: await engine.deleteQueue(unvalidated<DeleteQueueParams>(params)) }),
    'stats.get': (params) => {
      object(params, 'params', []);
      return engine.stats();
    },
    'stats.history': (params) => engine.statsHistory(unvalidated<StatsHistoryParams>(params)),
  };
}
