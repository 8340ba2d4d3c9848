/**
 * SQL over tokens (migration 11): the hashed access tokens of clients over the network.
 */
import type { StoredToken } from '../backend';
import type { TokenScope } from '../../../shared/protocol';
import type { Db } from './db';
import { int, text, toRow, type Row } from './row';

function mapToken(row: Row): StoredToken {
  return { name: text(row, 'name'), scope: text(row, 'scope') as TokenScope, hash: text(row, 'hash'), createdAt: int(row, 'created_at') };
}

export class TokenStatements {
  private readonly insertStmt;
  private readonly byNameStmt;
  private readonly allStmt;
  private readonly deleteStmt;

  constructor(db: Db) {
    this.insertStmt = db.prepare('INSERT INTO tokens (name, scope, hash, created_at) VALUES (@name, @scope, @hash, @createdAt)');
    this.byNameStmt = db.prepare('SELECT * FROM tokens WHERE name = @name');
    this.allStmt = db.prepare('SELECT * FROM tokens ORDER BY name');
    this.deleteStmt = db.prepare('DELETE FROM tokens WHERE name = @name');
  }

  insert(token: StoredToken): void {
    this.insertStmt.run(token);
  }

  get(name: string): StoredToken | undefined {
    const raw = this.byNameStmt.get({ name });
    return raw === undefined ? undefined : mapToken(toRow(raw, 'token'));
  }

  all(): StoredToken[] {
    return this.allStmt.all().map((raw) => mapToken(toRow(raw, 'token')));
  }

  delete(name: string): boolean {
    return this.deleteStmt.run({ name }).changes > 0;
  }
}
