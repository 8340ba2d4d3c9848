/**
 * SQL over tokens (../statements/tokens.ts, migration 11): the hashed access tokens of clients
 * over the network.
 */
import type { StoredToken } from '../statements/tokens';
import type { TokenSql } from '../statements/tokens';
import type { Db } from './db';
import { mapToken } from '../mappers';
import { toRow } from './row';

export class TokenStatements implements TokenSql {
  private readonly insertStmt;
  private readonly allStmt;
  private readonly deleteStmt;

  constructor(db: Db) {
    this.insertStmt = db.prepare('INSERT INTO tokens (name, scope, hash, created_at) VALUES (@name, @scope, @hash, @createdAt) ON CONFLICT (name) DO NOTHING');
    this.allStmt = db.prepare('SELECT * FROM tokens ORDER BY name');
    this.deleteStmt = db.prepare('DELETE FROM tokens WHERE name = @name');
  }

  tokenInsert(token: StoredToken): boolean {
    return this.insertStmt.run(token).changes > 0;
  }

  tokenList(): StoredToken[] {
    return this.allStmt.all().map((raw) => mapToken(toRow(raw, 'token')));
  }

  tokenDelete(name: string): boolean {
    return this.deleteStmt.run({ name }).changes > 0;
  }
}
