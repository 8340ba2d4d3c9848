/**
 * The daemon's TLS identity for `--listen`: a certificate and key given with `--tls-cert` and
 * `--tls-key`, or one made on first start in the data folder (`tls/` beside the database, 0700,
 * the files 0600) and reused after. Node cannot make X.509 certificates itself, so the `openssl`
 * command makes it: a self-signed EC P-256 certificate naming the listen host (and, for a
 * wildcard address, this machine's names) as subject alternative names.
 */
import { execFileSync } from 'node:child_process';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { errorMessage } from '../../shared/protocol/errors';

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

/** Loads the given certificate and key, or the data folder's, made first if missing. */
export function loadTlsIdentity(options: { certPath?: string; keyPath?: string; dataDir: string; host: string }): TlsIdentity {
  if ((options.certPath === undefined) !== (options.keyPath === undefined)) {
    throw new Error('--tls-cert and --tls-key go together: give both, or neither (a certificate is then made in the data folder).');
  }
  let certPath = options.certPath;
  let keyPath = options.keyPath;
  if (certPath === undefined || keyPath === undefined) {
    const dir = path.join(options.dataDir, 'tls');
    certPath = path.join(dir, 'cert.pem');
    keyPath = path.join(dir, 'key.pem');
    if (!fs.existsSync(certPath) || !fs.existsSync(keyPath)) generate(dir, certPath, keyPath, options.host);
  }
  const cert = read(certPath, '--tls-cert');
  const key = read(keyPath, '--tls-key');
  return { cert, key, fingerprint: certificateFingerprint(cert), certPath };
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
