/**
 * Where a client finds a daemon over the network, and how it knows it is the right one: a
 * `tls://host:port` endpoint, a token, and the server's identity — its certificate's SHA-256
 * fingerprint, or a CA that signed it. Never unverified: with neither, there is no target, and
 * the error says what to pass. From flags (`--endpoint`, `--token-file`, `--tls-fingerprint`,
 * `--tls-ca`) or the environment (SPOOL_ENDPOINT, SPOOL_TOKEN, SPOOL_TOKEN_FILE,
 * SPOOL_TLS_FINGERPRINT, SPOOL_TLS_CA).
 */
import * as fs from 'node:fs';
import { SpoolError, errorMessage } from '../protocol/errors';
import { ErrorCode } from '../protocol';

/** A daemon over TLS, and what a client needs to trust it and log in. */
export interface TlsTarget {
  host: string;
  port: number;
  /** The access token (from `spool token create`), sent with auth.login. */
  token: string;
  /** `sha256:` + 64 lower-case hex digits: the server certificate must have exactly this fingerprint. */
  fingerprint?: string;
  /** PEM certificates of the CA(s) that must have signed the server's certificate (its host name checked too). */
  ca?: string;
}

/** What the flags say; each falls back to its variable in the environment. */
export interface EndpointFlags {
  endpoint?: string;
  tokenFile?: string;
  tlsFingerprint?: string;
  tlsCa?: string;
}

function fail(message: string, field: string): SpoolError {
  return new SpoolError(ErrorCode.InvalidParams, message, { field });
}

/** `tls://host:port` (or `tls://[v6]:port`), checked. */
export function parseEndpoint(value: string): { host: string; port: number } {
  const match = /^tls:\/\/(?:\[([^\]]+)\]|([^:/[\]]+)):(\d{1,5})\/?$/.exec(value.trim());
  const host = match?.[1] ?? match?.[2];
  const port = Number(match?.[3]);
  if (!match || host === undefined || !Number.isInteger(port) || port < 1 || port > 65535) {
    throw fail(`The endpoint "${value}" is not tls://HOST:PORT (e.g. tls://build-box:7420). Spool speaks only TLS over the network.`, 'endpoint');
  }
  return { host, port };
}

/**
 * A fingerprint as `daemon.status` reports it: `sha256:` + 64 lower-case hex digits. Accepts it
 * also as `openssl x509 -fingerprint -sha256` prints it (upper case, colons, with or without the
 * `sha256:` or `SHA256 Fingerprint=` prefix).
 */
export function normalizeFingerprint(value: string): string {
  const hex = value.trim().replace(/^sha256(?: fingerprint)?[:=]/i, '').replaceAll(':', '').toLowerCase();
  if (!/^[0-9a-f]{64}$/.test(hex)) {
    throw fail(`The TLS fingerprint "${value}" is not sha256: and 64 hex digits. \`spool daemon status\` on the daemon's machine shows it.`, 'tlsFingerprint');
  }
  return `sha256:${hex}`;
}

/** The fingerprint of a peer certificate as Node gives it (`fingerprint256`, upper case with colons). */
export function fingerprintOf(fingerprint256: string): string {
  return 'sha256:' + fingerprint256.replaceAll(':', '').toLowerCase();
}

function readFile(file: string, what: string, field: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw fail(`Cannot read the ${what} ${file}: ${errorMessage(error)}`, field);
  }
}

/**
 * The TLS target the flags and the environment name, or null when they name none (the client
 * then uses the local Unix socket). Throws, saying what to pass, when an endpoint is given
 * without a token or without a way to check the server.
 */
export function tlsTarget(flags: EndpointFlags = {}, env: NodeJS.ProcessEnv = process.env): TlsTarget | null {
  const endpoint = flags.endpoint ?? env['SPOOL_ENDPOINT'];
  if (endpoint === undefined || endpoint === '') return null;
  const { host, port } = parseEndpoint(endpoint);
  const tokenFile = flags.tokenFile ?? env['SPOOL_TOKEN_FILE'];
  const token = (tokenFile ? readFile(tokenFile, 'token file', 'tokenFile') : (env['SPOOL_TOKEN'] ?? '')).trim();
  if (token === '') {
    throw fail(`${endpoint} needs a token: pass --token-file FILE or set SPOOL_TOKEN (make one on the daemon's machine with \`spool token create NAME --scope read|worker|admin\`).`, 'token');
  }
  const fingerprint = flags.tlsFingerprint ?? env['SPOOL_TLS_FINGERPRINT'];
  const caFile = flags.tlsCa ?? env['SPOOL_TLS_CA'];
  if (!fingerprint && !caFile) {
    throw fail(
      `Refusing to connect to ${endpoint} without checking who answers: pass --tls-fingerprint (SPOOL_TLS_FINGERPRINT), the tlsFingerprint that \`spool daemon status\` shows on the daemon's machine, or --tls-ca FILE (SPOOL_TLS_CA), the CA that signed its certificate.`,
      'tlsFingerprint',
    );
  }
  return {
    host,
    port,
    token,
    ...(fingerprint ? { fingerprint: normalizeFingerprint(fingerprint) } : {}),
    ...(caFile ? { ca: readFile(caFile, 'CA file', 'tlsCa') } : {}),
  };
}

/** How a target is named in messages. */
export function targetLabel(target: TlsTarget): string {
  return `tls://${target.host.includes(':') ? `[${target.host}]` : target.host}:${target.port}`;
}
