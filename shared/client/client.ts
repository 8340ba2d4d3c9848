/**
 * The typed JSON-RPC client every Spool program uses to talk to the daemon: the CLI, the
 * extension, the worker helper and the tests. Method names, params and results come from
 * `protocol.ts`, so a protocol change breaks the build, not the user.
 *
 * One `SpoolClient` is one logical connection. By default it is one socket: when the socket
 * closes, the client is closed. With `reconnect: true` the client outlives its sockets: after a
 * drop it reports `disconnected`, dials again with growing pauses (100 ms doubling to 5 s, with
 * jitter), re-subscribes every live `subscribe()` and runs the `onReconnect` hooks, then reports
 * `connected`. Calls made while it is disconnected wait for the new socket, within their own
 * timeout. Calls that were in flight when the socket dropped fail with `ConnectionLostError`:
 * the daemon may or may not have run them, and only the caller knows whether a retry is safe.
 */
import { SpoolError, isSpoolError } from '../protocol/errors';
import { defaultSocketPath } from './paths';
import {
  ErrorCode,
  NOTIFICATION_NAMES,
  PROTOCOL_VERSION,
  type DaemonStatus,
  type MethodName,
  type Notifications,
  type NotificationName,
  type ParamsOf,
  type ResultOf,
  type SubscribeParams,
  type TokenScope,
} from '../protocol';
import { Connection, ConnectionLostError, DaemonNotRunningError } from './connection';
import { targetLabel, tlsTarget, type TlsTarget } from './endpoint';

export { ConnectionLostError, DaemonNotRunningError };

export interface ReconnectOptions {
  /** First pause after a drop. Default 100 ms. */
  initialDelayMs?: number;
  /** Pauses double up to this. Default 5 s. */
  maxDelayMs?: number;
}

export interface ConnectOptions {
  /** Default: `defaultSocketPath()` (SPOOL_SOCKET, XDG_RUNTIME_DIR, ~/.spool). */
  socketPath?: string;
  /**
   * A daemon over TLS instead of the socket (see shared/client/endpoint.ts). Default: the one the
   * environment names (SPOOL_ENDPOINT, with SPOOL_TOKEN and SPOOL_TLS_FINGERPRINT or
   * SPOOL_TLS_CA) when no `socketPath` is given; else the Unix socket.
   */
  tls?: TlsTarget;
  /** How long one request may take before it fails. Default 30 s; 0 = no limit. */
  requestTimeoutMs?: number;
  /** How long to wait for the socket to accept. Default 5 s. */
  connectTimeoutMs?: number;
  /**
   * Keep the client alive across daemon restarts (see the module comment). The first connect
   * still fails at once when no daemon answers, so the caller can start one.
   */
  reconnect?: boolean | ReconnectOptions;
}

/** `connected`: requests flow. `disconnected`: reconnecting. `closed`: for good. */
export type ConnectionState = 'connected' | 'disconnected' | 'closed';

type Handler<N extends NotificationName> = (event: Notifications[N]) => void;

/** Handlers for the notifications of one subscription; any may be left out. */
export type NotificationHandlers = { [N in NotificationName]?: Handler<N> };

/** A typed call, as handed to reconnect hooks (which run before queued calls are let through). */
export type CallFunction = <M extends MethodName>(method: M, params?: ParamsOf<M>) => Promise<ResultOf<M>>;

export interface Subscription {
  /** The daemon's id for it; changes after a reconnect. */
  readonly id: string;
  /** Stop the notifications; safe to call twice or after the client closed. */
  unsubscribe(): Promise<void>;
}

interface SubscriptionEntry {
  params: SubscribeParams;
  handlers: NotificationHandlers;
  id: string | null;
  active: boolean;
}

/** Notifications that name a subscription whose `events.subscribe` answer has not arrived yet. */
const MAX_EARLY_NOTIFICATIONS = 10_000;

/** Raised by `handshake()` when the daemon speaks another protocol version. */
export class ProtocolMismatchError extends SpoolError {
  constructor(socketPath: string, daemonVersion: number, daemonRelease: string) {
    super(
      ErrorCode.InternalError,
      `The Spool daemon at ${socketPath} speaks protocol ${daemonVersion} (Spool ${daemonRelease}); this client speaks protocol ${PROTOCOL_VERSION}. ` +
        'Restart the daemon with this version: `spool daemon stop && spool daemon --detach`.',
    );
  }
}

export class SpoolClient {
  private conn: Connection | null;
  /** Set once the current socket is ready for callers (subscriptions and hooks restored). */
  private ready = true;
  private readyWaiters: { resolve: () => void; reject: (error: Error) => void }[] = [];
  private readonly handlers = new Map<string, Set<(event: never) => void>>();
  private readonly subscriptions = new Set<SubscriptionEntry>();
  private pendingSubscribes = 0;
  private earlyNotifications: { method: string; params: unknown }[] = [];
  private readonly closeListeners = new Set<(error?: Error) => void>();
  private readonly stateListeners = new Set<(state: ConnectionState, error?: Error) => void>();
  private readonly reconnectHooks = new Set<(call: CallFunction) => Promise<void>>();
  private closed = false;
  private reconnectTimer: NodeJS.Timeout | null = null;
  /**
   * Set while `tryReconnect` dials and prepares a socket. Only one attempt runs at a time: that
   * attempt owns its socket until it reports `connected`, and it alone decides on the next one.
   */
  private reconnecting = false;
  /** Why the latest reconnect attempt failed, while `disconnected`; for a status line. */
  lastReconnectError: Error | null = null;
  /** Why the client closed for good, when it was not `close()` (a refused token, say). */
  closeReason: Error | null = null;

  private constructor(
    conn: Connection,
    readonly socketPath: string,
    private readonly requestTimeoutMs: number,
    private readonly connectTimeoutMs: number,
    private readonly reconnect: Required<ReconnectOptions> | null,
    /** Set when the daemon is reached over TLS; each reconnect checks it and logs in again. */
    private readonly target?: TlsTarget,
  ) {
    this.conn = conn;
    this.attach(conn);
  }

  /**
   * Over TLS, the scope of the token the client logged in with (`read`, `worker`, `admin`): what
   * it may call. Null over the Unix socket, which has no limit.
   */
  get tokenScope(): TokenScope | null {
    return this.conn?.tokenScope ?? null;
  }

  /** Connect to the daemon; fails with DaemonNotRunningError when nothing answers. */
  static async connect(options: ConnectOptions = {}): Promise<SpoolClient> {
    const target = options.tls ?? (options.socketPath === undefined ? tlsTarget() : null) ?? undefined;
    const socketPath = target ? targetLabel(target) : (options.socketPath ?? defaultSocketPath());
    const connectTimeoutMs = options.connectTimeoutMs ?? 5000;
    const conn = await Connection.open(socketPath, connectTimeoutMs, target);
    const r = options.reconnect;
    const reconnect = r ? { initialDelayMs: 100, maxDelayMs: 5000, ...(typeof r === 'object' ? r : {}) } : null;
    return new SpoolClient(conn, socketPath, options.requestTimeoutMs ?? 30_000, connectTimeoutMs, reconnect, target);
  }

  /**
   * Call a method. Daemon errors arrive as SpoolError with the daemon's code and data; a
   * request that gets no answer within its timeout fails with a message naming the method.
   */
  async call<M extends MethodName>(method: M, params?: ParamsOf<M>, options: { timeoutMs?: number } = {}): Promise<ResultOf<M>> {
    const timeoutMs = options.timeoutMs ?? this.requestTimeoutMs;
    const started = Date.now();
    const conn = await this.readyConnection(method, timeoutMs);
    const left = timeoutMs > 0 ? Math.max(1, timeoutMs - (Date.now() - started)) : 0;
    return conn.request(method, params, left, timeoutMs);
  }

  /**
   * Any method name with any params, unchecked by the compiler: for raw access (`spool rpc`)
   * and for talking to a daemon newer than this client. Prefer `call`.
   */
  async callUnchecked(method: string, params?: unknown, options: { timeoutMs?: number } = {}): Promise<unknown> {
    const timeoutMs = options.timeoutMs ?? this.requestTimeoutMs;
    const started = Date.now();
    const conn = await this.readyConnection(method, timeoutMs);
    const left = timeoutMs > 0 ? Math.max(1, timeoutMs - (Date.now() - started)) : 0;
    return conn.requestUnchecked(method, params, left, timeoutMs);
  }

  /**
   * The handshake: the daemon's status, after checking it speaks this client's protocol
   * version. Throws ProtocolMismatchError with what to do when it does not.
   */
  async handshake(): Promise<DaemonStatus> {
    const status = await this.call('daemon.status');
    if (status.protocolVersion !== PROTOCOL_VERSION) throw new ProtocolMismatchError(this.socketPath, status.protocolVersion, status.version);
    return status;
  }

  /**
   * Handle every notification of this name on this connection, whatever subscription it
   * belongs to; returns a function that removes the handler. A handler that throws is a bug in
   * the handler: the exception is not caught here.
   */
  on<N extends NotificationName>(name: N, handler: Handler<N>): () => void {
    let set = this.handlers.get(name);
    if (!set) this.handlers.set(name, (set = new Set()));
    const h = handler as (event: never) => void;
    set.add(h);
    return () => set.delete(h);
  }

  /**
   * `events.subscribe` with handlers for its notifications only. With `reconnect`, the
   * subscription is made again on every new socket, so the handlers keep receiving.
   * Notifications sent while the socket was down are lost; re-read state in `onStateChange`.
   */
  async subscribe(params: SubscribeParams, handlers: NotificationHandlers): Promise<Subscription> {
    const entry: SubscriptionEntry = { params, handlers, id: null, active: true };
    for (let attempt = 1; ; attempt++) {
      const conn = await this.readyConnection('events.subscribe', this.requestTimeoutMs);
      try {
        await this.subscribeOn(conn, entry);
        break;
      } catch (error) {
        // The socket dropped mid-request: a reconnecting client subscribes on the next one.
        if (!(error instanceof ConnectionLostError) || this.reconnect === null || this.closed || attempt >= 3) throw error;
      }
    }
    // Only now does a reconnect re-make it; added earlier, a reconnect during the wait above
    // would subscribe it twice.
    this.subscriptions.add(entry);
    return {
      get id(): string {
        return entry.id ?? '';
      },
      unsubscribe: async () => {
        if (!entry.active) return;
        entry.active = false;
        this.subscriptions.delete(entry);
        const conn = this.conn;
        if (entry.id === null || conn === null || conn.isClosed || this.closed) return;
        await conn.request('events.unsubscribe', { subscriptionId: entry.id }, this.requestTimeoutMs);
      },
    };
  }

  /**
   * Run `hook` on every new socket after a reconnect, before waiting calls go through: a worker
   * registers itself again here. The hook must make its calls through the `call` it is given.
   */
  onReconnect(hook: (call: CallFunction) => Promise<void>): () => void {
    this.reconnectHooks.add(hook);
    return () => this.reconnectHooks.delete(hook);
  }

  /** Told about `connected` / `disconnected` (reconnecting) / `closed`. */
  onStateChange(listener: (state: ConnectionState, error?: Error) => void): () => void {
    this.stateListeners.add(listener);
    return () => this.stateListeners.delete(listener);
  }

  get state(): ConnectionState {
    if (this.closed) return 'closed';
    return this.conn !== null && this.ready ? 'connected' : 'disconnected';
  }

  /**
   * Called once when the client is closed for good: when the socket ends without
   * `reconnect`, or on `close()`. Without a listener, closes the client (kept for callers that
   * used it so).
   */
  onClose(listener: (error?: Error) => void): () => void;
  onClose(): void;
  onClose(listener?: (error?: Error) => void): (() => void) | void {
    if (listener) {
      this.closeListeners.add(listener);
      return () => this.closeListeners.delete(listener);
    }
    this.close();
  }

  get isClosed(): boolean {
    return this.closed;
  }

  close(): void {
    this.finish();
  }

  private attach(conn: Connection): void {
    conn.onNotification = (method, params) => this.dispatch(method, params);
    conn.onEnd = (error) => this.onConnectionEnd(conn, error);
  }

  private async subscribeOn(conn: Connection, entry: SubscriptionEntry): Promise<void> {
    this.pendingSubscribes++;
    try {
      const result = await conn.request('events.subscribe', entry.params, this.requestTimeoutMs);
      entry.id = result.subscriptionId;
    } finally {
      this.pendingSubscribes--;
    }
    const early = this.earlyNotifications;
    if (this.pendingSubscribes === 0) this.earlyNotifications = [];
    for (const n of early) if (subscriptionIdOf(n.params) === entry.id) this.deliver(entry, n.method, n.params);
  }

  private dispatch(method: string, params: unknown): void {
    const set = this.handlers.get(method);
    if (set) for (const h of set) h(params as never);
    const id = subscriptionIdOf(params);
    let matched = false;
    for (const entry of this.subscriptions) {
      if (entry.id !== null && entry.id === id) {
        matched = true;
        this.deliver(entry, method, params);
      }
    }
    // The daemon may push before its answer to events.subscribe has been read; keep such
    // notifications until the answer names their subscription.
    if (!matched && this.pendingSubscribes > 0 && this.earlyNotifications.length < MAX_EARLY_NOTIFICATIONS) {
      this.earlyNotifications.push({ method, params });
    }
  }

  private deliver(entry: SubscriptionEntry, method: string, params: unknown): void {
    if (!entry.active || !isNotificationName(method)) return;
    const handler = entry.handlers[method] as ((event: never) => void) | undefined;
    if (handler) handler(params as never);
  }

  private async readyConnection(method: string, timeoutMs: number): Promise<Connection> {
    if (this.closed) throw new ConnectionLostError(this.socketPath, `cannot send ${method}: the client is closed`);
    if (this.conn !== null && this.ready) return this.conn;
    await new Promise<void>((resolve, reject) => {
      const waiter = { resolve: () => done(resolve), reject: (e: Error) => done(() => reject(e)) };
      const timer =
        timeoutMs > 0
          ? setTimeout(
              () =>
                waiter.reject(
                  new DaemonNotRunningError(this.socketPath, `still reconnecting after ${timeoutMs} ms; ${method} was not sent`),
                ),
              timeoutMs,
            )
          : null;
      const done = (f: () => void): void => {
        if (timer) clearTimeout(timer);
        this.readyWaiters = this.readyWaiters.filter((w) => w !== waiter);
        f();
      };
      this.readyWaiters.push(waiter);
    });
    if (this.conn === null) throw new ConnectionLostError(this.socketPath, `cannot send ${method}: not connected`);
    return this.conn;
  }

  private onConnectionEnd(conn: Connection, error?: Error): void {
    if (conn !== this.conn) return;
    this.conn = null;
    if (this.closed) return;
    if (this.reconnect === null) {
      this.finish(error);
      return;
    }
    // A socket that drops while a reconnect is still preparing it fails that attempt's pending
    // request, and the attempt schedules the next one. Scheduling here too would run two
    // attempts at once, and the socket of one would be overwritten by the other's and leak.
    if (this.reconnecting) return;
    this.ready = false;
    this.emitState('disconnected', error);
    this.scheduleReconnect(this.reconnect.initialDelayMs);
  }

  private scheduleReconnect(delayMs: number): void {
    // Never two timers: a second one would start a second attempt, and close() clears only one.
    if (this.closed || this.reconnectTimer !== null) return;
    const jittered = delayMs * (0.8 + Math.random() * 0.4);
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      void this.tryReconnect(delayMs);
    }, jittered);
  }

  /** One reconnect attempt; on failure it schedules the next, with a longer pause. */
  private async tryReconnect(lastDelayMs: number): Promise<void> {
    if (this.closed || this.reconnect === null || this.reconnecting) return;
    const next = Math.min(lastDelayMs * 2, this.reconnect.maxDelayMs);
    this.reconnecting = true;
    let failure: Error | null;
    try {
      failure = await this.prepareConnection();
    } finally {
      this.reconnecting = false;
    }
    if (this.closed) return;
    if (failure !== null && isSpoolError(failure) && failure.code === ErrorCode.Unauthorized) {
      // The daemon answers but refuses the token (revoked, or replaced): trying again cannot
      // change that, and each try is a refused login in its log. Closed for good, with why.
      this.finish(failure);
      return;
    }
    if (failure !== null) {
      // The state is already `disconnected`; keep the reason for `lastReconnectError` and keep
      // dialling until close().
      this.lastReconnectError = failure;
      this.scheduleReconnect(next);
      return;
    }
    this.ready = true;
    this.lastReconnectError = null;
    for (const w of [...this.readyWaiters]) w.resolve();
    this.emitState('connected');
  }

  /**
   * Dial a new socket, make every live subscription again on it and run the reconnect hooks.
   * Returns why the socket is not usable, or null: then it is ready and installed as `this.conn`,
   * unless the client was closed meanwhile (the caller checks). A socket that is not kept is
   * closed here, never left open.
   */
  private async prepareConnection(): Promise<Error | null> {
    let conn: Connection;
    try {
      conn = await Connection.open(this.socketPath, this.connectTimeoutMs, this.target);
    } catch (error) {
      // Nothing answers yet: the daemon is restarting or gone.
      return error instanceof Error ? error : new Error(String(error));
    }
    if (this.closed) {
      conn.close();
      return null;
    }
    this.conn = conn;
    this.attach(conn);
    try {
      for (const entry of this.subscriptions) {
        entry.id = null;
        await this.subscribeOn(conn, entry);
      }
      const call: CallFunction = (method, params) => conn.request(method, params, this.requestTimeoutMs);
      for (const hook of this.reconnectHooks) await hook(call);
    } catch (error) {
      // The new socket is unusable (the daemon is still starting or stopped again): start over.
      this.abandon(conn);
      return error instanceof Error ? error : new Error(String(error));
    }
    if (this.closed) {
      this.abandon(conn);
      return null;
    }
    if (this.conn !== conn || conn.isClosed) {
      // It dropped while a hook that caught the error itself was running.
      this.abandon(conn);
      return new ConnectionLostError(this.socketPath, 'the new socket closed while subscriptions and reconnect hooks were restored');
    }
    return null;
  }

  /** Close a socket the client will not use, and forget it if it was the current one. */
  private abandon(conn: Connection): void {
    if (this.conn === conn) this.conn = null;
    conn.close();
  }

  private finish(error?: Error): void {
    if (this.closed) return;
    this.closed = true;
    this.closeReason = error ?? null;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
    const conn = this.conn;
    this.conn = null;
    if (conn) conn.close();
    const reason = new ConnectionLostError(this.socketPath, 'the client was closed');
    for (const w of [...this.readyWaiters]) w.reject(reason);
    this.emitState('closed', error);
    for (const l of this.closeListeners) l(error);
  }

  private emitState(state: ConnectionState, error?: Error): void {
    for (const l of this.stateListeners) l(state, error);
  }
}

function subscriptionIdOf(params: unknown): string | undefined {
  if (typeof params !== 'object' || params === null || !('subscriptionId' in params)) return undefined;
  const id = params.subscriptionId;
  return typeof id === 'string' ? id : undefined;
}

/** The protocol's notification names, as plain strings to look a received method up in. */
const NOTIFICATION_NAME_SET: ReadonlySet<string> = new Set(NOTIFICATION_NAMES);

function isNotificationName(name: string): name is NotificationName {
  return NOTIFICATION_NAME_SET.has(name);
}
