/**
 * Cursor-marked fixtures for the language server's tests: a `|` in the text marks where the
 * cursor is (the fixtures have no other `|`), `[[…]]` marks a range a result must have.
 */

export interface Marked {
  /** The text without the markers. */
  text: string;
  /** The cursor's offset and LSP position (when the fixture has a `|`). */
  offset: number;
  position: { line: number; character: number };
  /** The marked ranges, in order, as LSP ranges. */
  ranges: { start: { line: number; character: number }; end: { line: number; character: number } }[];
}

/** The LSP position of `offset` in `text` (lines end at \n). */
export function positionOf(text: string, offset: number): { line: number; character: number } {
  const before = text.slice(0, offset);
  const line = before.split('\n').length - 1;
  return { line, character: offset - (before.lastIndexOf('\n') + 1) };
}

/** Reads the markers out of a fixture. */
export function marked(fixture: string): Marked {
  let text = '';
  let offset = -1;
  const starts: number[] = [];
  const spans: [number, number][] = [];
  for (let i = 0; i < fixture.length; i++) {
    if (fixture[i] === '|') offset = text.length;
    else if (fixture.startsWith('[[', i)) {
      starts.push(text.length);
      i++;
    } else if (fixture.startsWith(']]', i)) {
      spans.push([starts.pop() ?? 0, text.length]);
      i++;
    } else text += fixture[i];
  }
  spans.sort((a, b) => a[0] - b[0]);
  return {
    text,
    offset,
    position: positionOf(text, Math.max(0, offset)),
    ranges: spans.map(([s, e]) => ({ start: positionOf(text, s), end: positionOf(text, e) })),
  };
}
