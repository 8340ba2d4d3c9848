/**
 * `--metrics-token FILE`: a bearer token the metrics endpoint asks for, so that on a shared
 * machine other local users cannot read the metrics (which name every queue and job kind). The
 * file must be the daemon user's own regular file, readable by nobody else (0600 or 0400), as a
 * secret should be; the daemon refuses to start otherwise and says which file and why.
 */
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import { errorMessage } from '../../shared/protocol/errors';

/** Shorter tokens are refused: a token is there to be unguessable. */
export const MIN_METRICS_TOKEN_LENGTH = 16;

/** The token in `file`, checked (owner, mode, length); throws a message naming the flag and the file. */
export function readMetricsToken(file: string): string {
  const refuse = (why: string): never => {
    throw new Error(`--metrics-token ${file}: ${why}`);
  };
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(file);
  } catch (error) {
    return refuse(`cannot read it: ${errorMessage(error)}.`);
  }
  if (!stat.isFile()) refuse('not a regular file (a symbolic link or a folder is not taken as a secret).');
  const uid = process.getuid?.();
  if (uid !== undefined && stat.uid !== uid) refuse(`owned by uid ${stat.uid}, not by the daemon's user (uid ${uid}); a token another user controls is not a secret.`);
  if ((stat.mode & 0o077) !== 0) {
    refuse(`its mode is ${(stat.mode & 0o777).toString(8).padStart(4, '0')}, so other users may read or change it; make it 0600 (chmod 600 ${file}).`);
  }
  const token = fs.readFileSync(file, 'utf8').trim();
  if (token.length < MIN_METRICS_TOKEN_LENGTH || /\s/.test(token)) {
    refuse(`the token must be one line of at least ${MIN_METRICS_TOKEN_LENGTH} characters without spaces (e.g. openssl rand -hex 32 > ${file}).`);
  }
  return token;
}

/**
 * Whether an `Authorization` header carries the token, compared in constant time: both sides are
 * hashed first, so neither the length nor any prefix of the token shows in the time taken.
 */
export function bearerMatches(header: string | undefined, token: string): boolean {
  const match = /^Bearer +(\S+) *$/i.exec(header ?? '');
  const given = crypto.createHash('sha256').update(match?.[1] ?? '').digest();
  const expected = crypto.createHash('sha256').update(token).digest();
  return crypto.timingSafeEqual(given, expected) && match !== null;
}
