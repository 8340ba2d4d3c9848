/** Handlers of daemon.* and events.*: the handshake, shutdown, and subscriptions. */
import { SpoolError } from '../../../shared/protocol/errors';
import { ErrorCode, EVENT_TOPICS, LIMITS } from '../../../shared/protocol';
import { array, jobId, nameList, nonEmptyString, object, optionalChoiceList } from '../../../shared/domain/validate';
import type { HandlerGroup, Services } from './types';

type DaemonMethods = 'daemon.status' | 'daemon.shutdown' | 'daemon.backup' | 'daemon.pauseAll' | 'daemon.resumeAll' | 'events.subscribe' | 'events.unsubscribe';

export function daemonHandlers(s: Services): HandlerGroup<DaemonMethods> {
  return {
    'daemon.status': (params) => {
      object(params, 'params', []);
      return s.status();
    },
    'daemon.backup': (params) => {
      const p = object(params, 'params', ['path']);
      const target = nonEmptyString(p['path'], 'path');
      if (s.shuttingDown) throw new SpoolError(ErrorCode.ShuttingDown, 'The daemon is shutting down; take the backup before stopping it, or copy the file once it has stopped.');
      return s.backup(target);
    },
    'daemon.pauseAll': async (params) => {
      object(params, 'params', []);
      return { allPaused: await s.engine.setAllPaused(true) };
    },
    'daemon.resumeAll': async (params) => {
      object(params, 'params', []);
      return { allPaused: await s.engine.setAllPaused(false) };
    },
    'daemon.shutdown': (params) => {
      object(params, 'params', []);
      s.requestShutdown('daemon.shutdown was called');
      return { ok: true };
    },
    'events.subscribe': (params, context) => {
      const p = object(params, 'params', ['topics', 'queues', 'jobIds']);
      const topics = optionalChoiceList(p['topics'], 'topics', EVENT_TOPICS);
      // The same checks as everywhere else, so that a typo is refused, naming the entry
      // ("queues[1]"), rather than accepted as a filter that matches nothing, ever.
      const queues = p['queues'] === undefined ? undefined : nameList(p['queues'], 'queues', LIMITS.maxBatch);
      const jobIds = p['jobIds'] === undefined ? undefined : array(p['jobIds'], 'jobIds', LIMITS.maxBatch).map((id, i) => jobId(id, `jobIds[${i}]`));
      const subscriptionId = s.events.subscribe(context.connection, {
        ...(topics ? { topics } : {}),
        ...(queues ? { queues } : {}),
        ...(jobIds ? { jobIds } : {}),
      });
      return { subscriptionId };
    },
    'events.unsubscribe': (params, context) => {
      const p = object(params, 'params', ['subscriptionId']);
      const id = nonEmptyString(p['subscriptionId'], 'subscriptionId');
      if (!s.events.unsubscribe(context.connection, id)) {
        throw new SpoolError(ErrorCode.InvalidParams, `This connection has no subscription ${id.slice(0, 64)}. Use the subscriptionId that events.subscribe returned on this same connection.`, { field: 'subscriptionId' });
      }
      return { ok: true };
    },
  };
}
