/**
 * Access tokens of clients over TCP, written once for every store: stored hashed, never the
 * token itself.
 */
import { SpoolError } from '../../../shared/protocol/errors';
import { ErrorCode } from '../../../shared/protocol';
import type { StoredToken } from '../../storage/statements/tokens';
import { sql, type Op } from '../../storage/statements';
import type { OpContext } from './context';

/**
 * Stores a new token. Rejects with AlreadyExists when the name is taken: the insert does nothing
 * then, so two daemons creating one name at once cannot both succeed.
 */
export function* createToken(token: StoredToken): Op<void> {
  if (!(yield* sql('tokenInsert', token))) {
    throw new SpoolError(ErrorCode.AlreadyExists, `A token named "${token.name}" exists already. Revoke it first (spool token revoke ${token.name}), or pick another name.`, { field: 'name' });
  }
}

/** Every token, by name. */
export function* listTokens(): Op<StoredToken[]> {
  return yield* sql('tokenList');
}

/**
 * Removes a token; false when there was none by that name. The revocation is recorded, so that
 * after the commit every daemon on the store closes the sessions logged in with it.
 */
export function* revokeToken(c: OpContext, name: string): Op<boolean> {
  const removed = yield* sql('tokenDelete', name);
  if (removed) c.changes.tokenRevoked?.(name);
  return removed;
}
