import type Database from 'better-sqlite3';
import type { Row } from '../rows';

export * from '../rows';

/** A row read with `.raw()`: an array, viewed through the statement's column positions. */
class ArrayRow implements Row {
  constructor(
    private readonly values: readonly unknown[],
    private readonly index: ReadonlyMap<string, number>,
  ) {}
  get(column: string): unknown {
    const i = this.index.get(column);
    return i === undefined ? undefined : this.values[i];
  }
}

/**
 * A statement whose rows are read as arrays. For the wide jobs rows (about thirty columns)
 * better-sqlite3 builds an array in half the time it builds an object with a key per column
 * (measured: 8 µs against 16 µs a row), and job rows are read on every claim, lease check and
 * listing.
 */
export class ArrayRows {
  private readonly index: ReadonlyMap<string, number>;

  constructor(
    private readonly statement: Database.Statement,
    private readonly what: string,
  ) {
    statement.raw(true);
    this.index = new Map(statement.columns().map((column, i) => [column.name, i]));
  }

  get(params: Readonly<Record<string, unknown>>): Row | undefined {
    const value: unknown = this.statement.get(params);
    return value === undefined ? undefined : this.wrap(value);
  }

  all(params: Readonly<Record<string, unknown>>): Row[] {
    return this.statement.all(params).map((value) => this.wrap(value));
  }

  private wrap(value: unknown): Row {
    if (!Array.isArray(value)) throw new Error(`Expected a ${this.what} row (an array) from SQLite, got ${typeof value}`);
    return new ArrayRow(value, this.index);
  }
}

