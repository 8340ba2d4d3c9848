/** Handlers of queues.* and stats.get. */
import type { ConfigureQueueParams, DeleteQueueParams, PurgeQueueParams } from '../../../shared/protocol';
import { unvalidated } from '../unvalidated';
import { paramsObject, requiredString } from '../validate';
import type { HandlerGroup, Services } from './types';

type QueueMethods =
  | 'queues.list'
  | 'queues.get'
  | 'queues.configure'
  | 'queues.pause'
  | 'queues.resume'
  | 'queues.purge'
  | 'queues.delete'
  | 'stats.get';

function queueName(params: unknown, method: string): string {
  return requiredString(paramsObject(params, method, ['name']), 'name', method);
}

export function queueHandlers(s: Services): HandlerGroup<QueueMethods> {
  const { engine } = s;
  return {
    'queues.list': (params) => {
      paramsObject(params, 'queues.list', []);
      return { queues: engine.listQueues() };
    },
    'queues.get': (params) => ({ queue: engine.getQueue(queueName(params, 'queues.get')) }),
    'queues.configure': (params) => ({ queue: engine.configureQueue(unvalidated<ConfigureQueueParams>(params)) }),
    'queues.pause': (params) => ({ queue: engine.pauseQueue(queueName(params, 'queues.pause')) }),
    'queues.resume': (params) => ({ queue: engine.resumeQueue(queueName(params, 'queues.resume')) }),
    'queues.purge': (params) => ({ deleted: engine.purgeQueue(unvalidated<PurgeQueueParams>(params)) }),
    'queues.delete': (params) => ({ deleted: engine.deleteQueue(unvalidated<DeleteQueueParams>(params)) }),
    'stats.get': (params) => {
      paramsObject(params, 'stats.get', []);
      return engine.stats();
    },
  };
}
