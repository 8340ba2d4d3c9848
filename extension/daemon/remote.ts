/**
 * A daemon on another machine, as the extension's settings name it: `spool.endpoint`
 * (`tls://host:port`), its identity (`spool.tlsFingerprint` or `spool.tlsCa`), and the access
 * token, which lives in VS Code's secret storage, never in settings. Never unverified: without a
 * fingerprint or a CA there is no target, and the message says which setting to fill in. No
 * `vscode` import: the rules are tested on their own.
 */
import * as fs from 'node:fs';
import { normalizeFingerprint, parseEndpoint, targetLabel, type TlsTarget } from '../../shared/client/endpoint';
import { errorMessage } from '../../shared/protocol/errors';

export interface RemoteSettings {
  /** `tls://host:port`; empty for the local daemon. */
  endpoint: string;
  tlsFingerprint: string;
  tlsCa: string;
}

/** Why there is no target, in the settings' own words. */
export class RemoteSettingsError extends Error {
  override readonly name = 'RemoteSettingsError';
  constructor(
    message: string,
    /** What would fix it: the token command, or the settings. */
    readonly fix: 'token' | 'settings',
  ) {
    super(message);
  }
}

/** The secret storage key of the token for an endpoint: one token per daemon. */
export function tokenKey(endpoint: string): string {
  return `spool.token:${endpoint.trim()}`;
}

/** The daemon over TLS that the settings and the stored token name. Throws RemoteSettingsError. */
export function remoteTarget(settings: RemoteSettings, token: string | undefined, readFile: (file: string) => string = (f) => fs.readFileSync(f, 'utf8')): TlsTarget {
  let where: { host: string; port: number };
  try {
    where = parseEndpoint(settings.endpoint);
  } catch {
    throw new RemoteSettingsError(`The setting spool.endpoint is "${settings.endpoint}", not tls://HOST:PORT (e.g. tls://build-box:7420). Spool reaches a daemon on another machine only over TLS.`, 'settings');
  }
  const label = targetLabel({ ...where, token: '' });
  if (settings.tlsFingerprint === '' && settings.tlsCa === '') {
    throw new RemoteSettingsError(
      `Spool will not connect to ${label} without checking who answers. Set spool.tlsFingerprint to the tlsFingerprint that \`spool daemon status\` shows on the daemon's machine, or spool.tlsCa to the CA file that signed its certificate.`,
      'settings',
    );
  }
  if (token === undefined || token.trim() === '') {
    throw new RemoteSettingsError(`Spool needs an access token for ${label}: make one on the daemon's machine with \`spool token create NAME --scope read|worker|admin\`, then run "Spool: Set Access Token for Remote Daemon".`, 'token');
  }
  let fingerprint: string | undefined;
  if (settings.tlsFingerprint !== '') {
    try {
      fingerprint = normalizeFingerprint(settings.tlsFingerprint);
    } catch {
      throw new RemoteSettingsError(`The setting spool.tlsFingerprint is not sha256: and 64 hex digits. Copy it from \`spool daemon status\` on the daemon's machine.`, 'settings');
    }
  }
  let ca: string | undefined;
  if (settings.tlsCa !== '') {
    try {
      ca = readFile(settings.tlsCa);
    } catch (error) {
      throw new RemoteSettingsError(`Cannot read the CA file of spool.tlsCa (${settings.tlsCa}): ${errorMessage(error)}`, 'settings');
    }
  }
  return { ...where, token: token.trim(), ...(fingerprint ? { fingerprint } : {}), ...(ca ? { ca } : {}) };
}
