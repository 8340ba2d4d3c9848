/**
 * Workers: the daemon's executors and registered remote workers, shown in the UI.
 */
import type { Worker, WorkerType } from '../../../../shared/types';
import type { SqliteContext } from './context';
import type { RegisterInput } from '../../../engine/validate/worker';

export function registerWorker(ctx: SqliteContext, input: RegisterInput, type: WorkerType): Worker {
  // A generated id is a UUIDv7 prefixed by the type, which fits the name pattern.
  const id = input.workerId ?? `${type}-${ctx.policy.newId()}`;
  ctx.store.workers.upsert({
    id,
    type,
    name: input.name,
    host: input.host,
    pid: input.pid,
    queues: JSON.stringify(input.queues),
    kinds: JSON.stringify(input.kinds),
    concurrency: input.concurrency,
    capacity: input.capacity,
    now: ctx.now(),
  });
  const worker = ctx.store.workers.get(id);
  if (!worker) throw new Error(`Worker ${id} was registered but cannot be read back`);
  return worker;
}
