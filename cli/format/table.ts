/** Aligned text tables and key/value blocks; widths ignore colour codes. */
import { visibleLength } from './color';

export interface Column<T> {
  header: string;
  value: (row: T) => string;
  /** Right-align (numbers). */
  right?: boolean;
}

export function renderTable<T>(rows: readonly T[], columns: readonly Column<T>[], header: (s: string) => string = (s) => s): string {
  const cells = rows.map((row) => columns.map((c) => c.value(row)));
  const widths = columns.map((c, i) => Math.max(c.header.length, ...cells.map((r) => visibleLength(r[i] ?? ''))));
  const line = (values: string[]): string =>
    values
      .map((v, i) => {
        const pad = ' '.repeat((widths[i] ?? 0) - visibleLength(v));
        if (i === values.length - 1 && !columns[i]?.right) return v;
        return columns[i]?.right ? pad + v : v + pad;
      })
      .join('  ')
      .trimEnd();
  const head = line(columns.map((c) => c.header));
  return [header(head), ...cells.map(line)].join('\n') + '\n';
}

/** `key:   value` lines, keys padded to one width. */
export function renderFields(fields: readonly [string, string][], key: (s: string) => string = (s) => s): string {
  const width = Math.max(0, ...fields.map(([k]) => k.length));
  // A value of several lines keeps to its column.
  const indent = '\n' + ' '.repeat(width + 3);
  return fields.map(([k, v]) => `${key((k + ':').padEnd(width + 1))}  ${v.split('\n').join(indent)}`).join('\n') + '\n';
}
