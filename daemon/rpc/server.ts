/**
 * The Unix socket the daemon listens on. Each accepted socket becomes a RpcConnection whose lines go
 * to the Dispatcher. The socket file is created with mode 0600 (owner only): the daemon runs
 * shell commands, so only its user may talk to it.
 */
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as tls from 'node:tls';
import { createJSONRPCErrorResponse } from 'json-rpc-2.0';
import { ErrorCode, LIMITS } from '../../shared/protocol';
import type { Logger } from '../lifecycle/logger';
import { stillStored } from './auth';
import { RpcConnection } from './connection';
import type { Dispatcher } from './dispatch';
import { MAX_DEPTH } from './envelope';
import { InputBudget } from './inputBudget';
import { LoginGuard } from './loginGuard';

/** At shutdown, how long a connection may take to answer the requests it is handling. */
const ANSWER_WAIT_MS = 1000;
/** Over TCP: how long a connection has to finish its TLS handshake. */
export const HANDSHAKE_TIMEOUT_MS = 5000;
/** Over TCP: how long a connection has to log in once its handshake is done. */
export const LOGIN_TIMEOUT_MS = 3000;
/**
 * Over TCP: connections that have not logged in yet, at most. A new one beyond it closes the
 * oldest waiting connection of the address that has the most, so that loops opening connections
 * and never logging in cannot keep a client out: it gets in, and has its turn to log in.
 */
export const MAX_UNAUTHENTICATED = 64;
/** Over TCP: connections from one address that have not logged in yet, at most (its oldest goes first). */
export const MAX_UNAUTHENTICATED_PER_SOURCE = 16;
/**
 * Over TCP, the longest line before logging in: a login line is under 2 KiB. After login a line
 * may have LIMITS.maxLineBytes. The Unix socket's peers are the daemon's own user and get the
 * full limit from the start.
 */
export const PRE_LOGIN_MAX_LINE_BYTES = 4096;

export class RpcServer {
  readonly connections = new Set<RpcConnection>();
  private readonly server: net.Server;
  private nextId = 1;
  private readonly connectionListeners: ((connection: RpcConnection) => void)[] = [];
  private tlsServer: tls.Server | null = null;
  /** TLS connections that have not logged in yet, by address, each oldest first. */
  private readonly waiting = new Map<string, Set<RpcConnection>>();
  private unauthenticated = 0;
  /** Limits on logins and the log of refusals over TLS. */
  readonly logins: LoginGuard;
  /** Unfinished lines across all connections, bounded together (see inputBudget.ts). */
  private readonly inputBudget = new InputBudget();

  constructor(
    readonly socketPath: string,
    private readonly dispatcher: Dispatcher,
    private readonly logger: Logger,
  ) {
    // allowHalfOpen: a peer that half-closes after its requests still gets the answers (see RpcConnection).
    this.server = net.createServer({ allowHalfOpen: true }, (socket) => this.accept(socket));
    this.server.on('error', (error) => this.logger.error('Socket server error', { socket: socketPath, error }));
    this.logins = new LoginGuard(logger);
  }

  /** Called for every new connection (to release what it owns when it closes). */
  onConnection(listener: (connection: RpcConnection) => void): void {
    this.connectionListeners.push(listener);
  }

  /** Listens; the socket file exists with mode 0600 when this resolves. */
  listen(): Promise<void> {
    return new Promise((resolve, reject) => {
      // The umask covers the instant between bind() and chmod(), when the file would otherwise
      // be reachable with the default mode.
      const previousUmask = process.umask(0o177);
      const onError = (error: Error): void => {
        process.umask(previousUmask);
        reject(error);
      };
      this.server.once('error', onError);
      this.server.listen(this.socketPath, () => {
        process.umask(previousUmask);
        this.server.removeListener('error', onError);
        try {
          fs.chmodSync(this.socketPath, 0o600);
        } catch (error) {
          reject(error instanceof Error ? error : new Error(String(error)));
          return;
        }
        resolve();
      });
    });
  }

  /**
   * Stops accepting and ends every connection once what was written to it has been sent (the
   * answer to `daemon.shutdown` among it); a peer that does not hang up is cut off shortly after.
   */
  /** Stops accepting; each connection ends once its requests in progress have been answered. */
  async close(): Promise<void> {
    const tlsServer = this.tlsServer;
    const tlsClosed = tlsServer ? new Promise<void>((resolve) => tlsServer.close(() => resolve())) : Promise.resolve();
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve())).then(() => tlsClosed);
    for (const connection of this.connections) connection.endWhenAnswered(ANSWER_WAIT_MS);
    await closed;
    this.logins.close();
  }

  /**
   * Also listens on TCP, over TLS only: a client that does not start a TLS handshake gets no
   * answer (its bytes fail the handshake) and is closed. Resolves with the bound address.
   */
  listenTls(host: string, port: number, identity: { cert: string; key: string }): Promise<net.AddressInfo> {
    const server = tls.createServer({ cert: identity.cert, key: identity.key, minVersion: 'TLSv1.2', handshakeTimeout: HANDSHAKE_TIMEOUT_MS, allowHalfOpen: true }, (socket) =>
      this.acceptTls(socket),
    );
    server.on('tlsClientError', (error, socket) => {
      this.logger.debug('Refused a TCP connection that did not complete a TLS handshake', { remote: socket.remoteAddress, error: error.message });
      socket.destroy();
    });
    server.on('error', (error) => this.logger.error('TLS server error', { listen: `${host}:${port}`, error }));
    this.tlsServer = server;
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.removeListener('error', reject);
        resolve(server.address() as net.AddressInfo);
      });
    });
  }

  /**
   * A TLS connection: it may call nothing but auth.login, with lines of at most
   * PRE_LOGIN_MAX_LINE_BYTES, until it has logged in, within LOGIN_TIMEOUT_MS. When too many are
   * waiting to log in, the oldest waiting one of the busiest address is closed to make room.
   */
  private acceptTls(socket: tls.TLSSocket): void {
    const source = socket.remoteAddress ?? '?';
    const remote = `${source}:${socket.remotePort ?? '?'}`;
    const fromSource = this.waiting.get(source);
    if (fromSource !== undefined && fromSource.size >= MAX_UNAUTHENTICATED_PER_SOURCE) this.makeRoom(fromSource, MAX_UNAUTHENTICATED_PER_SOURCE);
    else if (this.unauthenticated >= MAX_UNAUTHENTICATED) this.makeRoom(this.busiestSource(), MAX_UNAUTHENTICATED);
    const connection = this.accept(socket);
    connection.auth = { transport: 'tls', remote, source, login: null, attempts: 0 };
    connection.limitLines(PRE_LOGIN_MAX_LINE_BYTES);
    const waiting = this.waiting.get(source) ?? new Set<RpcConnection>();
    this.waiting.set(source, waiting);
    waiting.add(connection);
    this.unauthenticated++;
    const timer = setTimeout(() => {
      this.logins.refused('late', source, 'Closing a TCP connection that did not log in in time', { connection: connection.id, remote, ms: LOGIN_TIMEOUT_MS });
      this.stopWaiting(connection);
      connection.end(
        createJSONRPCErrorResponse(null, ErrorCode.Unauthorized, `Unauthorized: no auth.login within ${LOGIN_TIMEOUT_MS} ms; the connection is closed.`),
      );
    }, LOGIN_TIMEOUT_MS);
    timer.unref();
    connection.onLoggedIn(() => {
      clearTimeout(timer);
      this.stopWaiting(connection);
      connection.limitLines(LIMITS.maxLineBytes);
    });
    connection.onClose(() => {
      clearTimeout(timer);
      this.stopWaiting(connection);
    });
  }

  /** The connection no longer counts as waiting to log in (it did, it closed, or it was closed). */
  private stopWaiting(connection: RpcConnection): void {
    if (connection.auth.transport !== 'tls') return;
    const waiting = this.waiting.get(connection.auth.source);
    if (!waiting?.delete(connection)) return;
    this.unauthenticated--;
    if (waiting.size === 0) this.waiting.delete(connection.auth.source);
  }

  /** The waiting connections of the address with the most of them. */
  private busiestSource(): Set<RpcConnection> {
    let busiest = new Set<RpcConnection>();
    for (const waiting of this.waiting.values()) if (waiting.size > busiest.size) busiest = waiting;
    return busiest;
  }

  /**
   * Closes the oldest of `waiting` that has not tried to log in yet (one whose login is being
   * checked is spared when another can go), telling it why.
   */
  private makeRoom(waiting: Set<RpcConnection>, limit: number): void {
    let oldest: RpcConnection | undefined;
    for (const connection of waiting) {
      oldest ??= connection;
      if (connection.auth.transport === 'tls' && connection.auth.attempts === 0) {
        oldest = connection;
        break;
      }
    }
    if (oldest === undefined || oldest.auth.transport !== 'tls') return;
    const { source, remote } = oldest.auth;
    this.logins.refused('evicted', source, 'Closed a TCP connection that had not logged in yet, to make room for a newer one', { connection: oldest.id, remote, limit });
    this.stopWaiting(oldest);
    oldest.end(
      createJSONRPCErrorResponse(
        null,
        ErrorCode.Unauthorized,
        `Unauthorized: closed to make room: ${limit} connections from this address or in all had not logged in yet, and this one was the oldest. Log in right after connecting.`,
        { limit },
      ),
    );
  }

  /** Closes every TCP connection logged in with the token `name` (it was revoked). */
  closeLoginsOf(name: string): void {
    for (const connection of this.connections) {
      if (connection.auth.transport === 'tls' && connection.auth.login?.name === name) connection.close();
    }
  }

  /** Whether some TCP connection is logged in. */
  hasLogins(): boolean {
    for (const connection of this.connections) if (connection.auth.transport === 'tls' && connection.auth.login !== null) return true;
    return false;
  }

  /**
   * Closes every TCP connection whose token is no longer among `stored` as it was at its login
   * (revoked, or revoked and made again under the same name); the names of those closed.
   */
  closeLoginsNotIn(stored: readonly { name: string; hash: string }[]): string[] {
    const closed: string[] = [];
    for (const connection of this.connections) {
      const login = connection.auth.transport === 'tls' ? connection.auth.login : null;
      if (login === null || stillStored(login, stored)) continue;
      closed.push(login.name);
      connection.close();
    }
    return closed;
  }

  private accept(socket: net.Socket): RpcConnection {
    const connection = new RpcConnection(
      this.nextId++,
      socket,
      {
        onLine: (c, line) => this.dispatcher.handleLine(c, line),
        onOverflow: (c, bytes) => {
          const limit = c.maxLineBytes;
          const fields = { connection: c.id, bytes, limit };
          const beforeLogin = c.auth.transport === 'tls' && c.auth.login === null;
          if (c.auth.transport === 'tls' && beforeLogin) {
            this.logins.refused('oversized', c.auth.source, 'Closing a TCP connection that sent a line over the limit before logging in', { ...fields, remote: c.auth.remote });
          } else {
            this.logger.warn('Closing a connection that sent a line over the size limit', fields);
          }
          const why = beforeLogin ? `before auth.login succeeds, a line may hold at most ${limit} bytes` : `a line is longer than ${limit} bytes`;
          c.end(createJSONRPCErrorResponse(null, ErrorCode.InvalidRequest, `Invalid request: ${why}; the connection is closed.`, { limit }));
        },
        onTooDeep: (c) => {
          c.send(
            createJSONRPCErrorResponse(null, ErrorCode.InvalidRequest, `Invalid request: the message nests deeper than ${MAX_DEPTH} levels.`, { limit: MAX_DEPTH }),
          );
        },
        onOverBudget: (c, held, total, limit) => {
          this.logger.warn('Closing the connection holding the largest unfinished line: unfinished lines across all connections passed their limit', {
            connection: c.id,
            bytes: held,
            totalBytes: total,
            limit,
          });
          c.end(
            createJSONRPCErrorResponse(
              null,
              ErrorCode.InvalidRequest,
              `Invalid request: this connection sent ${mib(held)} without a newline while the daemon held ${mib(total)} of unfinished lines across all ` +
                `connections (limit ${mib(limit)}); the connection is closed. End each request with a newline; send large payloads one request at a time.`,
              { limit },
            ),
          );
        },
        onInvalidUtf8: (c, bytes) => {
          c.send(createJSONRPCErrorResponse(null, ErrorCode.ParseError, `Parse error: a line of ${bytes} bytes is not valid UTF-8.`));
        },
      },
      (c, unsent) => this.logger.warn('Closing a connection that does not read what the daemon sends', { connection: c.id, unsentBytes: unsent }),
      this.inputBudget,
    );
    this.connections.add(connection);
    connection.onClose(() => this.connections.delete(connection));
    for (const listener of this.connectionListeners) listener(connection);
    return connection;
  }
}

function mib(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}
