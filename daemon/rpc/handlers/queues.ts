/** Handlers of queues.* and stats.get. */
import type { ConfigureQueueParams, DeleteQueueParams, PurgeQueueParams } from '../../../shared/protocol';
import { unvalidated } from '../unvalidated';
import { nonEmptyString, object } from '../../../shared/domain/validate';
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

function queueName(params: unknown): string {
  return nonEmptyString(object(params, 'params', ['name'])['name'], 'name');
}

export function queueHandlers(s: Services): HandlerGroup<QueueMethods> {
  const { engine } = s;
  return {
    'queues.list': (params) => {
      object(params, 'params', []);
      return { queues: engine.listQueues() };
    },
    'queues.get': (params) => ({ queue: engine.getQueue(queueName(params)) }),
    'queues.configure': (params) => ({ queue: engine.configureQueue(unvalidated<ConfigureQueueParams>(params)) }),
    'queues.pause': (params) => ({ queue: engine.pauseQueue(queueName(params)) }),
    'queues.resume': (params) => ({ queue: engine.resumeQueue(queueName(params)) }),
    'queues.purge': (params) => ({ deleted: engine.purgeQueue(unvalidated<PurgeQueueParams>(params)) }),
    'queues.delete': (params) => ({ deleted: engine.deleteQueue(unvalidated<DeleteQueueParams>(params)) }),
    'stats.get': (params) => {
      object(params, 'params', []);
      return engine.stats();
    },
  };
}
