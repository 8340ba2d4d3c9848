/**
 * Output lines as stored: each cut to LIMITS.maxOutputLineBytes of UTF-8, saying how much was cut.
 */
import { LIMITS } from '../../shared/protocol';

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
