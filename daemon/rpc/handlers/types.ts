/**
 * What method handlers are given: the engine, and the daemon's parts that live beyond one call.
 * Each handler takes the raw params (`unknown`) and returns the result type `Methods` declares
 * for its method; the table type makes the compiler check that every method has a handler.
 */
import type { DaemonStatus, MethodName, ResultOf } from '../../../shared/protocol';
import type { Job } from '../../../shared/types';
import type { EngineClaimParams, QueueEngine } from '../../engine/api';
import type { ExecutorPool } from '../../executors/pool';
import type { Upkeep } from '../../scheduler/upkeep';
import type { ClaimWaiters } from '../claims';
import type { Connection } from '../connection';
import type { CallContext } from '../dispatch';
import type { EventHub } from '../events';
import type { WriteGroup } from '../groupCommit';

export interface Services {
  engine: QueueEngine;
  /** Group commit: writes that arrive together share a transaction. */
  writes: WriteGroup;
  claims: ClaimWaiters;
  events: EventHub;
  pool: ExecutorPool;
  upkeep: Upkeep;
  status(): Promise<DaemonStatus>;
  /** Starts a graceful shutdown after the current response is sent. */
  requestShutdown(reason: string): void;
  readonly shuttingDown: boolean;
  /** A worker id spoke over this connection: touch it, and mark it gone when the connection closes. */
  workerSeen(workerId: string, connection: Connection): void;
  /** Jobs were handed to a worker: their leases are due to expire. */
  claimed(jobs: Job[]): void;
  /** The engine's claim, plus the daemon's bookkeeping (see Daemon.claim). */
  claim(params: EngineClaimParams): Promise<Job[]>;
}

export type Handler<M extends MethodName> = (params: unknown, context: CallContext) => ResultOf<M> | Promise<ResultOf<M>>;

export type MethodTable = { [M in MethodName]: Handler<M> };

export type HandlerGroup<M extends MethodName> = { [K in M]: Handler<K> };
