/**
 * Workers, written once for every store: the daemon's executors and registered remote workers,
 * shown in the UI, with when each was last heard from.
 */
import type { Worker, WorkerType } from '../../../shared/protocol/types';
import { workerNotFound } from '../errors';
import { sql, type Op } from '../../storage/statements';
import type { RegisterInput } from '../validate/worker';
import type { OpContext } from './context';

/** Registers (or re-registers) a worker, with its capacity if it declares one; an id is made when the input has none. */
export function* registerWorker(c: OpContext, input: RegisterInput, type: WorkerType): Op<Worker> {
  // A generated id is a UUIDv7 prefixed by the type, which fits the name pattern.
  const id = input.workerId ?? `${type}-${c.policy.newId()}`;
  yield* sql('workerUpsert', {
    id,
    type,
    name: input.name,
    host: input.host,
    pid: input.pid,
    queues: JSON.stringify(input.queues),
    kinds: JSON.stringify(input.kinds),
    concurrency: input.concurrency,
    capacity: input.capacity,
    now: c.now(),
  });
  const worker = yield* sql('workerGet', id);
  if (!worker) throw new Error(`Worker ${id} was registered but cannot be read back`);
  return worker;
}

/** Every known worker. */
export function* listWorkers(): Op<Worker[]> {
  return yield* sql('workerList');
}

/** The worker was heard from now. Rejects with WorkerNotFound. */
export function* touchWorker(c: OpContext, workerId: string): Op<void> {
  if (!(yield* sql('workerTouch', { id: workerId, now: c.now() }))) throw workerNotFound(workerId);
}

/** The worker's connection closed; its leases run out normally. Rejects with WorkerNotFound. */
export function* markWorkerGone(workerId: string): Op<void> {
  if (!(yield* sql('workerMarkGone', workerId))) throw workerNotFound(workerId);
}
