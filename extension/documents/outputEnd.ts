/**
 * When a job's output document follows its end: it opens scrolled to the end, and keeps showing
 * the newest line as lines arrive while the reader is there; once they scroll up to read, it
 * stays where they are, until they scroll back down to the end. Pure, so tests need no editor.
 */

/**
 * Whether an editor whose last visible line is `lastVisibleLine` (0-based) shows the end of a
 * document of `lineCount` lines. The output ends with a line break, so its last line is empty and
 * the line above it counts as the end too.
 */
export function showsEnd(lastVisibleLine: number, lineCount: number): boolean {
  return lastVisibleLine >= lineCount - 2;
}
