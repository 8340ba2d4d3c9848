/**
 * spool-client: talk to a Spool daemon from Node — call any method of the protocol, subscribe to
 * its events, and run workers — over the local socket or TLS. Built from shared/client and
 * shared/protocol, with no daemon code and no dependencies.
 */
export {
  SpoolClient,
  ProtocolMismatchError,
  ConnectionLostError,
  DaemonNotRunningError,
  type ConnectOptions,
  type ReconnectOptions,
  type ConnectionState,
  type NotificationHandlers,
  type CallFunction,
  type Subscription,
} from '../../shared/client/client';
export { runWorker, PermanentError, RetryLaterError, SnoozeError, WorkerStoppedError, type WorkContext, type JobHandler, type RunWorkerOptions, type WorkerHandle } from '../../shared/client/worker';
export { tlsTarget, type TlsTarget, type EndpointFlags } from '../../shared/client/endpoint';
export { defaultSocketPath } from '../../shared/client/paths';
export { SpoolError, errorMessage } from '../../shared/protocol/errors';
export type * from '../../shared/protocol';
export { ErrorCode, LIMITS, METHOD_NAMES } from '../../shared/protocol';
export type * from '../../shared/protocol/types';
