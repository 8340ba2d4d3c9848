/**
 * The typed JSON-RPC client every Spool program uses to talk to the daemon: the CLI, the
 * extension, the worker helper and the tests. Method names, params and results come from
 * `protocol.ts`, so a protocol change breaks the build, not the user.
 */
import * as net from 'node:net';
import {
  JSONRPCClient,
  JSONRPCErrorException,
  createJSONRPCErrorResponse,
  type JSONRPCErrorResponse,
  type JSONRPCID,
  type JSONRPCRequest,
  type JSONRPCResponse,
} from 'json-rpc-2.0';
import { SpoolError } from './errors';
import { LineSplitter } from './lines';
import { defaultSocketPath } from './paths';
import { ErrorCode, LIMITS, type MethodName, type Notifications, type NotificationName, type ParamsOf, type ResultOf } from './protocol';

export interface ConnectOptions {
  /** Default: `defaultSocketPath()` (SPOOL_SOCKET, XDG_RUNTIME_DIR, ~/.spool). */
  socketPath?: string;
  /** How long one request may take before it fails. Default 30 s; 0 = no limit. */
  requestTimeoutMs?: number;
  /** How long to wait for the socket to accept. Default 5 s. */
  connectTimeoutMs?: number;
}

type Handler<N extends NotificationName> = (event: Notifications[N]) => void;

/** Raised when nothing listens at the socket path. */
export class DaemonNotRunningError extends SpoolError {
  constructor(readonly socketPath: string, cause?: string) {
    super(
      ErrorCode.InternalError,
      `No Spool daemon at ${socketPath}${cause ? ` (${cause})` : ''}. Start one with \`spool daemon --detach\`.`,
    );
  }
}

export class SpoolClient {
  private readonly rpc: JSONRPCClient;
  private readonly handlers = new Map<string, Set<(event: never) => void>>();
  private readonly closeListeners = new Set<(error?: Error) => void>();
  private closed = false;

  private constructor(
    private readonly socket: net.Socket,
    readonly socketPath: string,
    private readonly requestTimeoutMs: number,
  ) {
    this.rpc = new JSONRPCClient((payload: unknown) => {
      if (this.closed) throw new Error(`the connection to ${socketPath} is closed`);
      socket.write(JSON.stringify(payload) + '\n');
    });
    const splitter = new LineSplitter({
      maxLineBytes: LIMITS.maxLineBytes * 4,
      onLine: (line) => this.onLine(line),
      onOverflow: () => socket.destroy(new Error('the daemon sent a line over the size limit')),
    });
    socket.on('data', (data: Buffer) => splitter.push(data));
    socket.on('error', () => {
      // 'close' follows and reports; an error here must not become an uncaught exception.
    });
    socket.on('close', () => this.onClose());
  }

  /** Connect to the daemon; fails with DaemonNotRunningError when nothing answers. */
  static connect(options: ConnectOptions = {}): Promise<SpoolClient> {
    const socketPath = options.socketPath ?? defaultSocketPath();
    const connectTimeoutMs = options.connectTimeoutMs ?? 5000;
    return new Promise((resolve, reject) => {
      const socket = net.createConnection(socketPath);
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new DaemonNotRunningError(socketPath, `no answer within ${connectTimeoutMs} ms`));
      }, connectTimeoutMs);
      socket.once('connect', () => {
        clearTimeout(timer);
        socket.removeAllListeners('error');
        resolve(new SpoolClient(socket, socketPath, options.requestTimeoutMs ?? 30_000));
      });
      socket.once('error', (error: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        if (error.code === 'ENOENT' || error.code === 'ECONNREFUSED') reject(new DaemonNotRunningError(socketPath, error.code));
        else reject(new SpoolError(ErrorCode.InternalError, `Cannot connect to ${socketPath}: ${error.message}`));
      });
    });
  }

  /** Call a method. Daemon errors arrive as SpoolError with the daemon's code and data. */
  async call<M extends MethodName>(method: M, params?: ParamsOf<M>, options: { timeoutMs?: number } = {}): Promise<ResultOf<M>> {
    const timeoutMs = options.timeoutMs ?? this.requestTimeoutMs;
    const requester = timeoutMs > 0 ? this.rpc.timeout(timeoutMs, (id) => timeoutResponse(id, method, timeoutMs)) : this.rpc;
    try {
      return (await requester.request(method, params ?? {}, undefined)) as ResultOf<M>;
    } catch (error) {
      throw toSpoolError(error);
    }
  }

  /** Handle a notification; returns a function that removes the handler. */
  on<N extends NotificationName>(name: N, handler: Handler<N>): () => void {
    let set = this.handlers.get(name);
    if (!set) this.handlers.set(name, (set = new Set()));
    set.add(handler as (event: never) => void);
    return () => set.delete(handler as (event: never) => void);
  }

  /** Called once when the connection ends, for whatever reason. */
  onClose(listener: (error?: Error) => void): () => void;
  onClose(): void;
  onClose(listener?: (error?: Error) => void): (() => void) | void {
    if (listener) {
      this.closeListeners.add(listener);
      return () => this.closeListeners.delete(listener);
    }
    if (this.closed) return;
    this.closed = true;
    this.rpc.rejectAllPendingRequests(`The connection to the Spool daemon at ${this.socketPath} closed.`);
    for (const l of this.closeListeners) l();
  }

  get isClosed(): boolean {
    return this.closed;
  }

  close(): void {
    this.socket.end();
    this.socket.destroy();
  }

  private onLine(line: string): void {
    let message: JSONRPCResponse | JSONRPCRequest;
    try {
      message = JSON.parse(line) as JSONRPCResponse | JSONRPCRequest;
    } catch {
      // A daemon never sends invalid JSON; if one did, dropping the line is all we can do and
      // the request it answered fails by its timeout.
      return;
    }
    if (Array.isArray(message)) {
      this.rpc.receive(message as JSONRPCResponse[]);
    } else if ('method' in message && typeof message.method === 'string') {
      const set = this.handlers.get(message.method);
      if (set) for (const h of set) h(message.params as never);
    } else {
      this.rpc.receive(message as JSONRPCResponse);
    }
  }
}

function timeoutResponse(id: JSONRPCID, method: string, timeoutMs: number): JSONRPCErrorResponse {
  return createJSONRPCErrorResponse(id, ErrorCode.InternalError, `The daemon did not answer ${method} within ${timeoutMs} ms.`);
}

function toSpoolError(error: unknown): Error {
  if (error instanceof SpoolError) return error;
  if (error instanceof JSONRPCErrorException) return new SpoolError(error.code, error.message, error.data ?? {});
  if (error instanceof Error) return new SpoolError(ErrorCode.InternalError, error.message);
  return new SpoolError(ErrorCode.InternalError, String(error));
}
