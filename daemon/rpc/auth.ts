/**
 * Who may call what over TCP. A connection accepted on the Unix socket is the local user's and
 * may call everything (the socket is 0600). A connection accepted on the TLS listener starts
 * unauthenticated: it may only call `auth.login`, which checks a token against the stored hashes
 * and gives the connection the token's scope; each method's scope in the protocol table
 * (shared/protocol/methods.ts) then decides.
 */
import * as os from 'node:os';
import * as crypto from 'node:crypto';
import { SpoolError } from '../../shared/protocol/errors';
import { ErrorCode, METHODS, type MethodName, type MethodScope, type TokenScope } from '../../shared/protocol';
import type { Engine } from '../engine/engine';
import { MAX_LOGIN_ATTEMPTS, type LoginGuard } from './loginGuard';

/** How a connection came in, and (over TCP) what it has logged in as. */
export type ConnectionAuth =
  | { readonly transport: 'unix' }
  | {
      readonly transport: 'tls';
      /** `address:port`, for the log. */
      readonly remote: string;
      /** The peer's address: limits on connections and failed logins are kept per address. */
      readonly source: string;
      login: Login | null;
      /** auth.login calls made before one succeeded (at most MAX_LOGIN_ATTEMPTS are checked). */
      attempts: number;
    };

/**
 * What a TLS connection logged in as. The stored hash is kept so that the daemon can check the
 * session against the tokens now stored (a token revoked, or revoked and made again under its
 * name, no longer matches).
 */
export interface Login {
  name: string;
  scope: TokenScope;
  hash: string;
}

let localUser: string | null = null;

/**
 * Who a connection acts as, for a job's history: over the Unix socket the daemon's own user (the
 * socket's folder admits nobody else), over TCP `token <name>` once logged in.
 */
export function actorOf(auth: ConnectionAuth): string {
  if (auth.transport === 'tls') return auth.login === null ? 'a connection not logged in' : `token ${auth.login.name}`;
  if (localUser === null) {
    try {
      localUser = os.userInfo().username;
    } catch {
      localUser = `uid ${process.getuid?.() ?? '?'}`;
    }
  }
  return localUser;
}

/** Which token scopes may call a method of each scope. */
const ALLOWED: Record<MethodScope, readonly TokenScope[]> = {
  public: ['read', 'worker', 'admin'],
  read: ['read', 'worker', 'admin'],
  worker: ['worker', 'admin'],
  admin: ['admin'],
  local: [],
};

/** The prefix of every token: says what it is when one turns up in a log or a paste. */
const TOKEN_PREFIX = 'spool_';

/**
 * A new token: 32 random bytes. Stored as its SHA-256 alone: a token is 256 random bits, not a
 * password a person chose, so there is nothing for a slow, salted hash (scrypt, argon2) to
 * protect against — nobody can guess it or look it up in a dictionary, and reversing SHA-256 of
 * 256 random bits is out of reach. A fast hash also keeps each login cheap.
 */
export function newToken(): { token: string; hash: string } {
  const token = TOKEN_PREFIX + crypto.randomBytes(32).toString('base64url');
  return { token, hash: hashToken(token) };
}

/** The stored form of a token: lower-case hex of its SHA-256. */
export function hashToken(token: string): string {
  return crypto.createHash('sha256').update(token, 'utf8').digest('hex');
}

/** The error for a call a connection may not make, or null when it may. */
export function refusal(method: string, auth: ConnectionAuth): SpoolError | null {
  if (auth.transport === 'unix') return null;
  // Unknown methods are answered MethodNotFound by the dispatcher, whatever the login.
  if (!(method in METHODS)) return null;
  const scope = METHODS[method as MethodName].scope;
  if (scope === 'local') {
    return new SpoolError(ErrorCode.Forbidden, `${method} works only over the daemon's Unix socket, on its own machine (spool token … there), not over TCP.`, { field: 'method' });
  }
  if (scope === 'public') return null;
  if (auth.login === null) {
    return new SpoolError(
      ErrorCode.Unauthorized,
      `Unauthorized: log in first with auth.login {"token": "…"} before calling ${method}. A token comes from \`spool token create NAME --scope read|worker|admin\` on the daemon's machine; clients take it from SPOOL_TOKEN or --token-file.`,
      { field: 'method' },
    );
  }
  const allowed = ALLOWED[scope];
  if (allowed.includes(auth.login.scope)) return null;
  return new SpoolError(
    ErrorCode.Forbidden,
    `The token "${auth.login.name}" has scope ${auth.login.scope}, which may not call ${method}: that needs ${allowed.join(' or ')}. Use a token made with \`spool token create NAME --scope ${allowed[0]}\`.`,
    { field: 'method', scope: auth.login.scope, allowed: allowed.join(', ') },
  );
}

/** What `login` needs of the connection: who it is, and a way to close it after the answer. */
export interface LoginConnection {
  readonly id: number;
  readonly auth: Extract<ConnectionAuth, { transport: 'tls' }>;
  /** Handles no more requests; closes once the ones in progress are answered. */
  endWhenAnswered(maxWaitMs: number): void;
}

/**
 * Logs a TLS connection in, within the limits of rpc/loginGuard.ts: a connection is closed after
 * MAX_LOGIN_ATTEMPTS failures, and an address that failed too often is refused unchecked for a
 * while. The token is checked against every stored hash, each compared in constant time, so that
 * how long a refusal takes says nothing about how close a guess came. The token itself is never
 * logged: a refusal logs the connection and where it came from.
 */
export async function login(engine: Engine, guard: LoginGuard, token: string, connection: LoginConnection): Promise<Login> {
  const { auth } = connection;
  const where = { connection: connection.id, remote: auth.remote };
  const refuse = (message: string): never => {
    // Once this call is counted in flight (the dispatcher does so after the handler returns), so
    // that its answer is sent before the connection ends.
    queueMicrotask(() => connection.endWhenAnswered(1000));
    throw new SpoolError(ErrorCode.Unauthorized, message, { field: 'token' });
  };
  if (auth.login === null && ++auth.attempts > MAX_LOGIN_ATTEMPTS) {
    refuse(`Unauthorized: a connection may try ${MAX_LOGIN_ATTEMPTS} logins; the connection is closed. Connect again with the right token.`);
  }
  const wait = guard.waitBeforeLogin(auth.source);
  if (wait > 0) {
    guard.refused('throttled', auth.source, 'Refused a login unchecked: too many failed logins from its address', where);
    refuse(`Unauthorized: too many failed logins from ${auth.source}; logins from it are refused for the next ${Math.ceil(wait / 1000)} s. The connection is closed.`);
  }
  const presented = Buffer.from(hashToken(token), 'hex');
  let found: Login | null = null;
  for (const stored of await engine.listTokens()) {
    const candidate = Buffer.from(stored.hash, 'hex');
    if (candidate.length === presented.length && crypto.timingSafeEqual(candidate, presented) && found === null) {
      found = { name: stored.name, scope: stored.scope, hash: stored.hash };
    }
  }
  if (found === null) {
    guard.failed(auth.source);
    guard.refused('login', auth.source, 'Refused a login with a wrong token', where);
    const unknown = "Unauthorized: the token is not known to this daemon (wrong, or revoked). Make one with `spool token create NAME --scope …` on the daemon's machine.";
    if (auth.login === null && auth.attempts >= MAX_LOGIN_ATTEMPTS) refuse(`${unknown} This connection made ${MAX_LOGIN_ATTEMPTS} failed logins and is closed.`);
    throw new SpoolError(ErrorCode.Unauthorized, unknown, { field: 'token' });
  }
  return found;
}

/** Whether a session's token is still stored as it was when the session logged in. */
export function stillStored(login: Login, stored: readonly { name: string; hash: string }[]): boolean {
  return stored.some((token) => token.name === login.name && token.hash === login.hash);
}

/** The refusal of a login whose token was revoked while it logged in. */
export function revokedDuringLogin(name: string): SpoolError {
  return new SpoolError(ErrorCode.Unauthorized, `Unauthorized: the token "${name}" was revoked while this connection logged in.`, { field: 'token' });
}
