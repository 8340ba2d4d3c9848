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
    'queues.list': async (params) => {
      paramsObject(params, 'queues.list', []);
      return { queues: await engine.listQueues() };
    },
    'queues.get': async (params) => ({ queue: await engine.getQueue(queueName(params, 'queues.get')) }),
    'queues.configure': async (params) => ({ queue: await engine.configureQueue(unvalidated<ConfigureQueueParams>(params)) }),
    'queues.pause': async (params) => ({ queue: await engine.pauseQueue(queueName(params, 'queues.pause')) }),
    'queues.resume': async (params) => ({ queue: await engine.resumeQueue(queueName(params, 'queues.resume')) }),
    'queues.purge': async (params) => ({ deleted: await engine.purgeQueue(unvalidated<PurgeQueueParams>(params)) }),
    'queues.delete': async (params) => ({ deleted: await engine.deleteQueue(unvalidated<DeleteQueueParams>(params)) }),
    'stats.get': (params) => {
      paramsObject(params, 'stats.get', []);
      return engine.stats();
    },
  };
}
