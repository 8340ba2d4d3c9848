/**
 * Statements over access tokens (../statements/tokens.ts), in PostgreSQL: stored hashed.
 */
import type { AsyncPart } from '../statements';
import type { TokenSql } from '../statements/tokens';
import { mapToken } from '../mappers';
import type { PgTx } from './db';

export const tokenStatements: AsyncPart<PgTx, TokenSql> = {
  /** Two daemons creating one name at once: one inserts, the other's insert does nothing. */
  async tokenInsert(tx, token) {
    const inserted = await tx.run('INSERT INTO tokens (name, scope, hash, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT (name) DO NOTHING', [
      token.name,
      token.scope,
      token.hash,
      token.createdAt,
    ]);
    return inserted > 0;
  },

  async tokenList(tx) {
    return (await tx.rows('SELECT * FROM tokens ORDER BY name')).map(mapToken);
  },

  async tokenDelete(tx, name) {
    return (await tx.run('DELETE FROM tokens WHERE name = $1', [name])) > 0;
  },
};
