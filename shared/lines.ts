/**
 * Newline-delimited framing: one JSON-RPC message per `\n`-terminated UTF-8 line. Used by the
 * daemon's socket server and by every client.
 */
import { isUtf8 } from 'node:buffer';

export interface LineSplitterOptions {
  /** A line longer than this (in bytes, without the newline) is reported through onOverflow. */
  maxLineBytes: number;
  onLine: (line: string) => void;
  /** Called once when a line exceeds the limit; no more lines are delivered afterwards. */
  onOverflow: (bytes: number) => void;
  /**
   * When set, a line that is not valid UTF-8 is reported here (with its length in bytes) instead
   * of being decoded with replacement characters, so a server can refuse it rather than act on
   * silently altered text. Lines keep being delivered afterwards.
   */
  onInvalidUtf8?: (bytes: number) => void;
}

/**
 * Splits a byte stream into lines without ever holding more than `maxLineBytes` of one
 * unfinished line, so a hostile peer cannot make the reader buffer without bound.
 */
export class LineSplitter {
  private chunks: Buffer[] = [];
  private pending = 0;
  private overflowed = false;

  constructor(private readonly options: LineSplitterOptions) {}

  push(data: Buffer): void {
    if (this.overflowed) return;
    let start = 0;
    for (;;) {
      const nl = data.indexOf(10, start);
      if (nl === -1) break;
      const piece = data.subarray(start, nl);
      if (this.pending + piece.length > this.options.maxLineBytes) return this.overflow(this.pending + piece.length);
      let line: Buffer;
      if (this.chunks.length === 0) line = piece;
      else {
        this.chunks.push(piece);
        line = Buffer.concat(this.chunks, this.pending + piece.length);
        this.chunks = [];
        this.pending = 0;
      }
      start = nl + 1;
      // A trailing \r is tolerated so that `nc -C` and Windows-style clients work.
      const end = line.length > 0 && line[line.length - 1] === 13 ? line.length - 1 : line.length;
      if (end > 0) this.deliver(line, end);
      if (this.overflowed) return;
    }
    const rest = data.subarray(start);
    if (rest.length === 0) return;
    if (this.pending + rest.length > this.options.maxLineBytes) return this.overflow(this.pending + rest.length);
    // Copy: the caller may reuse its buffer.
    this.chunks.push(Buffer.from(rest));
    this.pending += rest.length;
  }

  private deliver(line: Buffer, end: number): void {
    if (this.options.onInvalidUtf8 && !isUtf8(line.subarray(0, end))) this.options.onInvalidUtf8(end);
    else this.options.onLine(line.toString('utf8', 0, end));
  }

  private overflow(bytes: number): void {
    this.overflowed = true;
    this.chunks = [];
    this.pending = 0;
    this.options.onOverflow(bytes);
  }
}
