/**
 * One socket to the daemon and the JSON-RPC bookkeeping over it: framing, request ids,
 * timeouts, notifications. `SpoolClient` builds reconnection and subscriptions on top; a
 * `Connection` itself never outlives its socket.
 */
import * as net from 'node:net';
import * as tls from 'node:tls';
import {
  JSONRPCClient,
  JSONRPCErrorException,
  createJSONRPCErrorResponse,
  type JSONRPCErrorResponse,
  type JSONRPCID,
  type JSONRPCResponse,
} from 'json-rpc-2.0';
import { fingerprintOf, targetLabel, type TlsTarget } from './endpoint';
import { checkSocketTrust } from './socketTrust';
import { SpoolError, errorMessage } from '../protocol/errors';
import { LineSplitter } from '../protocol/lines';
import { ErrorCode, LIMITS, type MethodName, type ParamsOf, type ResultOf, type TokenScope } from '../protocol';

/** Raised when nothing listens at the socket path. */
export class DaemonNotRunningError extends SpoolError {
  constructor(
    readonly socketPath: string,
    cause?: string,
  ) {
    super(
      ErrorCode.InternalError,
      `No Spool daemon at ${socketPath}${cause ? ` (${cause})` : ''}. Start one with \`spool daemon --detach\`.`,
    );
  }
}

/**
 * The socket closed while a request was in flight, or a request was made on a closed client.
 * The daemon may or may not have carried out an in-flight request.
 */
export class ConnectionLostError extends SpoolError {
  constructor(
    readonly socketPath: string,
    detail: string,
  ) {
    super(ErrorCode.InternalError, `Lost the connection to the Spool daemon at ${socketPath}: ${detail}.`);
  }
}

export class Connection {
  /** Set by the owner; called for every request the daemon sends without an id. */
  onNotification: (method: string, params: unknown) => void = () => {};
  /** Set by the owner; called once when the socket has closed, for whatever reason. */
  onEnd: (error?: Error) => void = () => {};
  private readonly rpc: JSONRPCClient;
  private closed = false;
  private lastError: Error | undefined;
  /** Over TLS, the scope of the token this connection logged in with; null over the Unix socket (the local user's, with no limit). */
  tokenScope: TokenScope | null = null;

  private constructor(
    private readonly socket: net.Socket,
    readonly socketPath: string,
  ) {
    this.rpc = new JSONRPCClient((payload: unknown) => {
      if (this.closed) throw new ConnectionLostError(socketPath, 'the socket is closed');
      socket.write(JSON.stringify(payload) + '\n');
    });
    const splitter = new LineSplitter({
      maxLineBytes: LIMITS.maxLineBytes * 4,
      onLine: (line) => this.onLine(line),
      onOverflow: () => socket.destroy(new Error('the daemon sent a line over the size limit')),
    });
    socket.on('data', (data: Buffer) => splitter.push(data));
    socket.on('error', (error: Error) => {
      // 'close' follows and reports it to the owner.
      this.lastError = error;
    });
    socket.on('close', () => this.ended());
  }

  /**
   * Dial the socket (or, given a TLS target, the daemon over TLS, checking its certificate and
   * logging in); DaemonNotRunningError when nobody listens there, Forbidden when the socket
   * belongs to another user or sits in a folder others can write (see client/socketTrust.ts).
   * `socketPath` names the daemon in messages (`tls://host:port` for a target).
   */
  static open(socketPath: string, connectTimeoutMs: number, target?: TlsTarget): Promise<Connection> {
    if (target) return Connection.openTls(target, connectTimeoutMs);
    return new Promise((resolve, reject) => {
      try {
        checkSocketTrust(socketPath);
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
        return;
      }
      const socket = net.createConnection(socketPath);
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new DaemonNotRunningError(socketPath, `no answer within ${connectTimeoutMs} ms`));
      }, connectTimeoutMs);
      socket.once('connect', () => {
        clearTimeout(timer);
        socket.removeAllListeners('error');
        resolve(new Connection(socket, socketPath));
      });
      socket.once('error', (error: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        if (error.code === 'ENOENT' || error.code === 'ECONNREFUSED') reject(new DaemonNotRunningError(socketPath, error.code));
        else reject(new SpoolError(ErrorCode.InternalError, `Cannot connect to ${socketPath}: ${error.message}. Check that the socket belongs to your user, or point --socket (SPOOL_SOCKET) at another daemon.`));
      });
    });
  }

  private static async openTls(target: TlsTarget, connectTimeoutMs: number): Promise<Connection> {
    const label = targetLabel(target);
    const socket = await new Promise<tls.TLSSocket>((resolve, reject) => {
      const socket = tls.connect({
        host: target.host,
        port: target.port,
        ...(net.isIP(target.host) ? {} : { servername: target.host }),
        ...(target.ca === undefined ? {} : { ca: target.ca }),
        // With a CA, Node checks the chain and the host name. With a fingerprint alone the
        // certificate is self-signed, which the chain check would refuse before any hook runs:
        // the fingerprint is compared at 'secureConnect' instead, before a byte is sent.
        rejectUnauthorized: target.ca !== undefined,
      });
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new DaemonNotRunningError(label, `no TLS handshake within ${connectTimeoutMs} ms`));
      }, connectTimeoutMs);
      socket.once('secureConnect', () => {
        clearTimeout(timer);
        if (target.fingerprint !== undefined) {
          const presented = fingerprintOf(socket.getPeerCertificate().fingerprint256 ?? '');
          if (presented !== target.fingerprint) {
            socket.destroy();
            reject(
              new SpoolError(
                ErrorCode.InternalError,
                `The server at ${label} presented a certificate with fingerprint ${presented}, not the expected ${target.fingerprint}: it is not the daemon you named, or its certificate changed. Check \`spool daemon status\` on the daemon's machine; nothing was sent.`,
                { field: 'tlsFingerprint' },
              ),
            );
            return;
          }
        }
        socket.removeAllListeners('error');
        resolve(socket);
      });
      socket.once('error', (error: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        if (error.code === 'ECONNREFUSED') reject(new DaemonNotRunningError(label, error.code));
        else reject(new SpoolError(ErrorCode.InternalError, `Cannot connect to ${label} over TLS: ${error.message}.`, { field: 'endpoint' }));
      });
    });
    const connection = new Connection(socket, label);
    try {
      connection.tokenScope = (await connection.request('auth.login', { token: target.token }, connectTimeoutMs)).scope;
    } catch (error) {
      connection.close();
      throw error;
    }
    return connection;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** One request; `timeoutMs` 0 waits forever. Daemon errors become SpoolError with their code and data. */
  async request<M extends MethodName>(method: M, params: ParamsOf<M> | undefined, timeoutMs: number, statedTimeoutMs = timeoutMs): Promise<ResultOf<M>> {
    // The protocol types guarantee the shape; the daemon validates what it receives.
    return (await this.requestUnchecked(method, params, timeoutMs, statedTimeoutMs)) as ResultOf<M>;
  }

  /**
   * A request by any name with any params, for raw access (`spool rpc`). `statedTimeoutMs` is the
   * caller's whole timeout, named in the error when part of it was spent waiting for a socket.
   */
  async requestUnchecked(method: string, params: unknown, timeoutMs: number, statedTimeoutMs = timeoutMs): Promise<unknown> {
    const requester = timeoutMs > 0 ? this.rpc.timeout(timeoutMs, (id) => timeoutResponse(id, method, statedTimeoutMs)) : this.rpc;
    try {
      return await requester.request(method, params === undefined ? {} : params, undefined);
    } catch (error) {
      if (this.closed && !(error instanceof JSONRPCErrorException && error.code !== 0)) {
        throw new ConnectionLostError(this.socketPath, `the socket closed before ${method} was answered`);
      }
      throw toSpoolError(error);
    }
  }

  close(): void {
    this.socket.end();
    this.socket.destroy();
  }

  private ended(): void {
    if (this.closed) return;
    this.closed = true;
    this.rpc.rejectAllPendingRequests(`The connection to the Spool daemon at ${this.socketPath} closed.`);
    this.onEnd(this.lastError);
  }

  private onLine(line: string): void {
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch (error) {
      // A daemon never sends invalid JSON; if one did, the request it answered would hang until
      // its timeout. Closing says so at once, and the owner reports the error.
      this.socket.destroy(new Error(`the daemon sent a line that is not JSON (${errorMessage(error)})`));
      return;
    }
    if (Array.isArray(message)) {
      this.rpc.receive(message as JSONRPCResponse[]);
    } else if (typeof message === 'object' && message !== null && 'method' in message && typeof message.method === 'string') {
      this.onNotification(message.method, 'params' in message ? message.params : undefined);
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
