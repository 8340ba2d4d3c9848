/**
 * Where things are in a jobs file: offsets (UTF-16 code units, as JavaScript strings and the
 * Language Server Protocol count them) turned into 0-based lines and characters, and the 1-based
 * line and column people read in a terminal. One line index per parse, so a problem costs a
 * binary search rather than a scan of a 5 MB text.
 */

/** A place in the text, 0-based, in the Language Server Protocol's shape. */
export interface Position {
  line: number;
  /** UTF-16 code units from the start of the line. */
  character: number;
}

/** A stretch of the text: offset and length, and the same as 0-based positions (end exclusive). */
export interface Span {
  offset: number;
  length: number;
  start: Position;
  end: Position;
}

/** A position as people read it: line and column both counted from 1. */
export interface LineColumn {
  line: number;
  column: number;
}

/** The 1-based line and column of a 0-based position (what `spool apply` prints). */
export function lineColumn(position: Position): LineColumn {
  return { line: position.line + 1, column: position.character + 1 };
}

/** Offsets of the start of every line of a text, for offset → position lookups. */
export class LineIndex {
  private readonly starts: number[] = [0];

  constructor(private readonly text: string) {
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      // \r\n counts as one break; a lone \r too, as editors treat it.
      if (c === 10) this.starts.push(i + 1);
      else if (c === 13) {
        if (text.charCodeAt(i + 1) === 10) i++;
        this.starts.push(i + 1);
      }
    }
  }

  /** The 0-based position of `offset` (clamped to the text). */
  position(offset: number): Position {
    const at = Math.max(0, Math.min(offset, this.text.length));
    let low = 0;
    let high = this.starts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if ((this.starts[mid] ?? 0) <= at) low = mid;
      else high = mid - 1;
    }
    return { line: low, character: at - (this.starts[low] ?? 0) };
  }

  /** The span from `offset` for `length` code units (clamped to the text). */
  span(offset: number, length: number): Span {
    const start = Math.max(0, Math.min(offset, this.text.length));
    const end = Math.max(start, Math.min(start + Math.max(0, length), this.text.length));
    return { offset: start, length: end - start, start: this.position(start), end: this.position(end) };
  }
}

/**
 * The offset in the document of the character at `index` of a string literal's value. The
 * literal starts at `literalOffset` (its opening quote); escapes (`\n`, `\u00e9`) take more room in
 * the text than in the value, so they are walked rather than assumed away.
 */
export function offsetInString(text: string, literalOffset: number, index: number): number {
  let raw = literalOffset + 1;
  for (let decoded = 0; decoded < index && raw < text.length; decoded++) {
    if (text.charCodeAt(raw) === 92 /* \ */) raw += text.charCodeAt(raw + 1) === 117 /* u */ ? 6 : 2;
    else raw += 1;
  }
  return raw;
}
