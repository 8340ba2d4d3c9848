/**
 * Typed reading of the rows a store's driver returns (`unknown` to the compiler). Each getter
 * checks the column's runtime type, so a schema drift fails loudly with the column's name
 * instead of flowing into the protocol as the wrong type.
 */

/** A row by column name, whichever way the driver handed it over. */
export interface Row {
  get(column: string): unknown;
}

/** A row as better-sqlite3 returns it by default: an object keyed by column name. */
class ObjectRow implements Row {
  constructor(private readonly values: object) {}
  get(column: string): unknown {
    return Reflect.get(this.values, column);
  }
}

export function toRow(value: unknown, what: string): Row {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error(`Expected a ${what} row from the store, got ${typeof value}`);
  return new ObjectRow(value);
}

function columnError(row: Row, column: string, expected: string): Error {
  return new Error(`Column ${column} should be ${expected}, got ${JSON.stringify(row.get(column))}`);
}

export function int(row: Row, column: string): number {
  const v = row.get(column);
  if (typeof v !== 'number') throw columnError(row, column, 'a number');
  return v;
}

export function intOrNull(row: Row, column: string): number | null {
  const v = row.get(column);
  if (v === null) return null;
  if (typeof v !== 'number') throw columnError(row, column, 'a number or null');
  return v;
}

export function text(row: Row, column: string): string {
  const v = row.get(column);
  if (typeof v !== 'string') throw columnError(row, column, 'text');
  return v;
}

export function textOrNull(row: Row, column: string): string | null {
  const v = row.get(column);
  if (v === null) return null;
  if (typeof v !== 'string') throw columnError(row, column, 'text or null');
  return v;
}

export function bool(row: Row, column: string): boolean {
  return int(row, column) !== 0;
}

/** A JSON column: null stays null (SQL NULL), anything else is parsed. */
export function json(row: Row, column: string): unknown {
  const v = textOrNull(row, column);
  return v === null ? null : JSON.parse(v);
}

export function stringArray(row: Row, column: string): string[] {
  const v: unknown = JSON.parse(text(row, column));
  if (!Array.isArray(v) || !v.every((x): x is string => typeof x === 'string')) throw columnError(row, column, 'a JSON array of strings');
  return v;
}

/** One value, from a `.pluck()` statement or an aggregate. */
export function scalarInt(value: unknown, what: string): number {
  if (typeof value !== 'number') throw new Error(`Expected a number for ${what} from SQLite, got ${JSON.stringify(value)}`);
  return value;
}

export function scalarIntOrNull(value: unknown, what: string): number | null {
  if (value === null || value === undefined) return null;
  return scalarInt(value, what);
}

/** A REAL column (SQLite returns a JS number either way; the name says what the column holds). */
export function real(row: Row, column: string): number {
  return int(row, column);
}

export function scalarText(value: unknown, what: string): string {
  if (typeof value !== 'string') throw new Error(`Expected text for ${what} from SQLite, got ${JSON.stringify(value)}`);
  return value;
}
