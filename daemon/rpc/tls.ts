/**
 * The daemon's TLS identity for `--listen`: a certificate and key given with `--tls-cert` and
 * `--tls-key`, or one made on first start in the data folder (`tls/` beside the database, 0700,
 * the files 0600; `team.db.tls/` beside a database of another name than spool.db) and reused after. Node cannot make X.509 certificates itself, so the `openssl`
 * command makes it: a self-signed EC P-256 certificate naming the listen host (and, for a
 * wildcard address, this machine's names) as subject alternative names.
 *
 * A certificate and key are served only if nobody else could have put them there or read the
 * key (checkTlsFiles): clients pin the certificate they are shown, so one another user planted
 * beside a database in a shared folder would be the one they trust.
 */
import { execFileSync } from 'node:child_process';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { notOwnReason } from '../../shared/client/fileTrust';
import { octalMode, userName } from '../../shared/client/socketTrust';
import { ErrorCode } from '../../shared/protocol';
import { errorMessage, SpoolError } from '../../shared/protocol/errors';

export interface TlsIdentity {
  cert: string;
  key: string;
  /** `sha256:` and the lower-case hex of the SHA-256 of the certificate's DER bytes. */
  fingerprint: string;
  /** Where the files are (for the log). */
  certPath: string;
}

/** `HOST:PORT` (or `[v6]:PORT`) from `--listen`, checked. */
export function parseListen(value: string): { host: string; port: number } {
  const match = /^(?:\[([^\]]+)\]|([^:]+)):(\d{1,5})$/.exec(value);
  const host = match?.[1] ?? match?.[2];
  const port = Number(match?.[3]);
  if (!match || host === undefined || !Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`--listen: expected HOST:PORT (e.g. 0.0.0.0:7420 or [::1]:7420), got "${value}".`);
  }
  return { host, port };
}

/**
 * The fingerprint of a certificate (PEM), in the form `daemon.status` reports and clients pass
 * with --tls-fingerprint: `sha256:` + lower-case hex of the DER's SHA-256, which is what
 * `openssl x509 -noout -fingerprint -sha256` prints, lower-cased and without the colons.
 */
export function certificateFingerprint(certPem: string): string {
  return 'sha256:' + new crypto.X509Certificate(certPem).fingerprint256.replaceAll(':', '').toLowerCase();
}

/** Loads the given certificate and key, or those in `tlsFolder` (shared/client/paths.ts), made first if missing. */
export function loadTlsIdentity(options: { certPath?: string; keyPath?: string; tlsFolder: string; host: string }): TlsIdentity {
  if ((options.certPath === undefined) !== (options.keyPath === undefined)) {
    throw new Error('--tls-cert and --tls-key go together: give both, or neither (a certificate is then made in the data folder).');
  }
  let certPath = options.certPath;
  let keyPath = options.keyPath;
  if (certPath === undefined || keyPath === undefined) {
    const dir = options.tlsFolder;
    certPath = path.join(dir, 'cert.pem');
    keyPath = path.join(dir, 'key.pem');
    // The folder, and what is in it, is Spool's own: this user's alone.
    checkTlsFile(dir, 'the TLS folder', 'own', 0o022);
    checkTlsFile(certPath, 'the TLS certificate', 'own', 0o022);
    checkTlsFile(keyPath, 'the TLS key', 'own', 0o077);
    if (!fs.existsSync(certPath) || !fs.existsSync(keyPath)) generate(dir, certPath, keyPath, options.host);
  } else {
    // Files named with --tls-cert and --tls-key may also be root's (a certificate an
    // administrator installed), and the key readable by a group (ssl-cert), never by others.
    checkTlsFile(certPath, '--tls-cert', 'own-or-root', 0o022);
    checkTlsFile(keyPath, '--tls-key', 'own-or-root', 0o026);
    for (const dir of new Set([path.dirname(path.resolve(certPath)), path.dirname(path.resolve(keyPath))])) checkTlsFile(dir, 'the folder of --tls-cert or --tls-key', 'own-or-root', 0o022, true);
  }
  const cert = read(certPath, '--tls-cert');
  const key = read(keyPath, '--tls-key');
  return { cert, key, fingerprint: certificateFingerprint(cert), certPath };
}

/**
 * Refuses (Forbidden, naming the file and why) a certificate, key or folder another user owns, or
 * whose mode allows what `forbidden` names (writing by others; for a key, reading too). A folder
 * with the sticky bit may be writable by others (/tmp): nobody else may replace a file in it.
 */
function checkTlsFile(file: string, what: string, owners: 'own' | 'own-or-root', forbidden: number, stickyAllowed = false): void {
  const uid = process.getuid?.();
  if (uid === undefined) return;
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch (error) {
    if (error instanceof Error && 'code' in error && error.code === 'ENOENT') return;
    throw error;
  }
  let reason: string | null = null;
  if (stat.uid !== uid && !(owners === 'own-or-root' && stat.uid === 0)) reason = notOwnReason(stat, uid);
  else if ((stat.mode & forbidden) !== 0 && !(stickyAllowed && (stat.mode & 0o1000) !== 0)) {
    reason = `its mode ${octalMode(stat.mode)} lets other users ${(stat.mode & forbidden & 0o022) !== 0 ? 'write' : 'read'} it`;
  }
  if (reason === null) return;
  throw new SpoolError(
    ErrorCode.Forbidden,
    `Refusing ${what} ${file}: ${reason}, so clients could be shown a certificate someone else controls. ` +
      `Keep the TLS files where only ${userName(uid)} can write them (and read the key), e.g. chmod 600 for the files and 700 for their folder, or pass --tls-cert and --tls-key.`,
    { field: 'tls' },
  );
}

function read(file: string, flag: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new Error(`${flag}: cannot read ${file}: ${errorMessage(error)}`);
  }
}

/** The names a certificate for `host` should carry, as subjectAltName entries. */
function altNames(host: string): string[] {
  const names = new Set<string>(['DNS:localhost', 'IP:127.0.0.1', 'IP:::1']);
  const wildcard = host === '0.0.0.0' || host === '::';
  if (wildcard) {
    names.add(`DNS:${os.hostname()}`);
    for (const addresses of Object.values(os.networkInterfaces())) {
      for (const address of addresses ?? []) names.add(`IP:${address.address.replace(/%.*$/, '')}`);
    }
  } else {
    names.add(net.isIP(host) ? `IP:${host}` : `DNS:${host}`);
  }
  return [...names];
}

function generate(dir: string, certPath: string, keyPath: string, host: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  fs.chmodSync(dir, 0o700);
  // The folder is the owner's alone before the key is written, and the umask keeps the files so.
  const previousUmask = process.umask(0o077);
  try {
    execFileSync(
      'openssl',
      [
        'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes',
        '-keyout', keyPath, '-out', certPath, '-days', '3650', '-subj', '/CN=spool daemon',
        '-addext', `subjectAltName=${altNames(host).join(',')}`,
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
  } catch (error) {
    const stderr = error instanceof Error && 'stderr' in error ? String(error.stderr) : String(error);
    throw new Error(`Could not make a TLS certificate with openssl (install it, or pass --tls-cert and --tls-key): ${stderr.trim()}`);
  } finally {
    process.umask(previousUmask);
  }
  fs.chmodSync(keyPath, 0o600);
  fs.chmodSync(certPath, 0o600);
}
