/**
 * Output lines within LIMITS.maxOutputLineBytes of UTF-8: as stored (a longer line is cut, saying
 * how much), and as the daemon's shell executor and `spool work` send them (a longer line is split
 * into several, so none of it is lost).
 */
import { LIMITS } from '../protocol';

export function truncateLine(text: string, maxBytes: number = LIMITS.maxOutputLineBytes): string {
  // Fast path: a string of n UTF-16 units is at most 3n bytes.
  if (text.length * 3 <= maxBytes) return text;
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return text;
  const suffix = ` … [${bytes.length} bytes, cut to ${maxBytes}]`;
  const keep = Math.max(0, maxBytes - Buffer.byteLength(suffix, 'utf8'));
  // Cutting inside a multi-byte character leaves a replacement character; drop it.
  const head = bytes.subarray(0, keep).toString('utf8').replace(/\uFFFD+$/, '');
  return head + suffix;
}

/** Splits a line into pieces of at most `maxBytes` of UTF-8, between characters; a line within it comes back whole. */
export function splitLine(text: string, maxBytes: number = LIMITS.maxOutputLineBytes): string[] {
  // Fast path: a string of n UTF-16 units is at most 3n bytes.
  if (text.length * 3 <= maxBytes || Buffer.byteLength(text) <= maxBytes) return [text];
  const pieces: string[] = [];
  let current = '';
  let bytes = 0;
  for (const ch of text) {
    const size = Buffer.byteLength(ch);
    if (bytes + size > maxBytes) {
      pieces.push(current);
      current = '';
      bytes = 0;
    }
    current += ch;
    bytes += size;
  }
  pieces.push(current);
  return pieces;
}
