/**
 * What method handlers are given: the engine, and the daemon's parts that live beyond one call.
 * Each handler takes the raw params (`unknown`) and returns the result type the protocol's method
 * table declares for its method. `MethodTable` is derived from that table: a method without a
 * handler, or a handler for a method the table does not declare, does not compile
 * (test/unit/protocol-table.types.ts shows both).
 */
import type { BackupResult, DaemonStatus, MethodName, ResultOf } from '../../../shared/protocol';
import type { Job } from '../../../shared/protocol/types';
import type { EngineClaimParams } from '../../engine/api';
import type { Engine } from '../../engine/engine';
import type { ExecutorPool } from '../../executors/pool';
import type { Upkeep } from '../../scheduler/upkeep';
import type { ClaimWaiters } from '../claims';
import type { RpcConnection } from '../connection';
import type { CallContext } from '../dispatch';
import type { EventHub } from '../events';
import type { WriteGroup } from '../groupCommit';
import type { Logger } from '../../lifecycle/logger';
import type { LoginGuard } from '../loginGuard';

/** The daemon's parts a handler may use. */
export interface Services {
  engine: Engine;
  /** Group commit: writes that arrive together share a transaction. */
  writes: WriteGroup;
  claims: ClaimWaiters;
  events: EventHub;
  pool: ExecutorPool;
  upkeep: Upkeep;
  status(): Promise<DaemonStatus>;
  /** A consistent copy of the store at an absolute path, with its checksum (daemon.backup). */
  backup(target: string): Promise<BackupResult>;
  /** Starts a graceful shutdown after the current response is sent. */
  requestShutdown(reason: string): void;
  readonly shuttingDown: boolean;
  /** A worker id spoke over this connection: touch it, and mark it gone when the connection closes. */
  workerSeen(workerId: string, connection: RpcConnection): void;
  /** Jobs were handed to a worker: their leases are due to expire. */
  claimed(jobs: Job[]): void;
  /** The engine's claim, plus the daemon's bookkeeping (see Daemon.claim). */
  claim(params: EngineClaimParams): Promise<Job[]>;
  logger: Logger;
  /** Limits on logins over TLS, and their log (rpc/loginGuard.ts). */
  logins: LoginGuard;
}

/** The handler of one method: raw params in, the method's result out. */
export type Handler<M extends MethodName> = (params: unknown, context: CallContext) => ResultOf<M> | Promise<ResultOf<M>>;

/** One handler per method of the protocol's table, no more, no less. */
export type MethodTable = { [M in MethodName]: Handler<M> };

/** The handlers of some of the table's methods (one file's worth); names outside the table do not compile. */
export type HandlerGroup<M extends MethodName> = { [K in M]: Handler<K> };
