/**
 * Statements over access tokens (see ./index.ts for the protocol): stored as the SHA-256 of the
 * token, never the token.
 */
import type { TokenScope } from '../../../shared/protocol';

/** An access token as stored: its SHA-256 (hex), never the token. */
export interface StoredToken {
  name: string;
  scope: TokenScope;
  /** Lower-case hex of the SHA-256 of the token. */
  hash: string;
  createdAt: number;
}

export interface TokenSql {
  /** Stores a token unless one has the name already; false when it had. */
  tokenInsert(token: StoredToken): boolean;
  /** Every token, by name. */
  tokenList(): StoredToken[];
  /** Removes a token; false when there was none by that name. */
  tokenDelete(name: string): boolean;
}
