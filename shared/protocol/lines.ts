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
  /**
   * When set, each line's nesting of objects and arrays is counted as its bytes arrive; a line
   * that nests deeper than this is dropped at once (nothing more of it is kept, the rest up to
   * its newline is skipped) and reported through onTooDeep. No parser then spends time on it:
   * JSON.parse of 7 million '[' took the daemon 14 s before the depth could be checked.
   */
  maxDepth?: number;
  onTooDeep?: () => void;
}

/** An unfinished line up to this size is kept as copies of what was read, as they came. */
const SMALL_LINE_BYTES = 64 * 1024;
/**
 * Beyond SMALL_LINE_BYTES, an unfinished line is copied into slabs of this size. Measured: 40
 * unfinished lines of 1-15 MiB kept as 64 KiB copies left the process 100 MB larger after they
 * were dropped and garbage-collected (the allocator keeps blocks that small); kept in 1 MiB slabs,
 * which the allocator maps and unmaps on their own, the memory went back to the system.
 */
const SLAB_BYTES = 1024 * 1024;

/**
 * Splits a byte stream into lines without ever holding more than `maxLineBytes` of one
 * unfinished line, so a hostile peer cannot make the reader buffer without bound.
 */
export class LineSplitter {
  private chunks: Buffer[] = [];
  private pending = 0;
  private overflowed = false;
  /** The slab a large unfinished line is being copied into, and how much of it is used. */
  private slab: Buffer | null = null;
  private slabUsed = 0;
  private maxLineBytes: number;
  /** The nesting scan of the current line: depth so far, inside a string, after a backslash. */
  private depth = 0;
  private inString = false;
  private escaped = false;
  /** The current line nested too deep: its bytes are counted (for maxLineBytes), not kept. */
  private skipping = false;
  private skipped = 0;

  constructor(private readonly options: LineSplitterOptions) {
    this.maxLineBytes = options.maxLineBytes;
  }

  /** Changes the longest line allowed from now on (a server allows more once a peer has logged in). */
  setMaxLineBytes(bytes: number): void {
    this.maxLineBytes = bytes;
  }

  /** Bytes of an unfinished line held now (a server caps their sum across connections). */
  get buffered(): number {
    return this.pending;
  }

  /** Drops the unfinished line, so its memory can be given back; later data is ignored. */
  discard(): void {
    this.overflowed = true;
    this.skipping = false;
    this.reset();
  }

  push(data: Buffer): void {
    if (this.overflowed) return;
    let start = 0;
    for (;;) {
      const nl = data.indexOf(10, start);
      const end = nl === -1 ? data.length : nl;
      if (this.skipping) {
        this.skipped += end - start;
        if (this.skipped > this.maxLineBytes) return this.overflow(this.skipped);
      } else if (this.pending + (end - start) > this.maxLineBytes) {
        return this.overflow(this.pending + (end - start));
      } else if (this.scan(data, start, end)) {
        // Too deep: what was kept of the line goes, the rest of it is skipped.
        this.skipped = this.pending + (end - start);
        this.reset();
        this.skipping = true;
        this.options.onTooDeep?.();
        if (this.overflowed) return;
      }
      if (nl === -1) break;
      if (this.skipping) {
        this.skipping = false;
        this.skipped = 0;
      } else {
        const piece = data.subarray(start, nl);
        let line: Buffer;
        if (this.chunks.length === 0) line = piece;
        else {
          this.chunks.push(piece);
          line = Buffer.concat(this.chunks, this.pending + piece.length);
          this.reset();
        }
        // A trailing \r is tolerated so that `nc -C` and Windows-style clients work.
        const lineEnd = line.length > 0 && line[line.length - 1] === 13 ? line.length - 1 : line.length;
        if (lineEnd > 0) this.deliver(line, lineEnd);
        if (this.overflowed) return;
      }
      this.depth = 0;
      this.inString = false;
      this.escaped = false;
      start = nl + 1;
    }
    if (this.skipping || start === data.length) return;
    this.keep(data.subarray(start));
  }

  /**
   * Counts the nesting of `data[start, end)`, a piece of the current line, on from where the
   * line's earlier pieces left it; true when it passes maxDepth. Brackets inside strings do not
   * count. Malformed JSON may count wrongly here; the parser refuses it afterwards.
   */
  private scan(data: Buffer, start: number, end: number): boolean {
    const max = this.options.maxDepth;
    if (max === undefined) return false;
    let depth = this.depth;
    let inString = this.inString;
    let escaped = this.escaped;
    let tooDeep = false;
    for (let i = start; i < end; i++) {
      const b = data[i];
      if (inString) {
        if (escaped) escaped = false;
        else if (b === 0x5c) escaped = true;
        else if (b === 0x22) inString = false;
      } else if (b === 0x22) inString = true;
      else if (b === 0x5b || b === 0x7b) {
        if (++depth > max) {
          tooDeep = true;
          break;
        }
      } else if (b === 0x5d || b === 0x7d) depth--;
    }
    this.depth = depth;
    this.inString = inString;
    this.escaped = escaped;
    return tooDeep;
  }

  /** Keeps a piece of the unfinished line, copied: the caller may reuse its buffer. */
  private keep(data: Buffer): void {
    if (this.pending + data.length <= SMALL_LINE_BYTES) {
      this.chunks.push(Buffer.from(data));
    } else {
      for (let offset = 0; offset < data.length; ) {
        if (this.slab === null || this.slabUsed === this.slab.length) {
          this.slab = Buffer.allocUnsafeSlow(SLAB_BYTES);
          this.slabUsed = 0;
        }
        const copied = data.copy(this.slab, this.slabUsed, offset);
        this.chunks.push(this.slab.subarray(this.slabUsed, this.slabUsed + copied));
        this.slabUsed += copied;
        offset += copied;
      }
    }
    this.pending += data.length;
  }

  private reset(): void {
    this.chunks = [];
    this.pending = 0;
    this.slab = null;
    this.slabUsed = 0;
  }

  private deliver(line: Buffer, end: number): void {
    if (this.options.onInvalidUtf8 && !isUtf8(line.subarray(0, end))) this.options.onInvalidUtf8(end);
    else this.options.onLine(line.toString('utf8', 0, end));
  }

  private overflow(bytes: number): void {
    this.overflowed = true;
    this.reset();
    this.options.onOverflow(bytes);
  }
}
