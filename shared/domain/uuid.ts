/**
 * UUIDv7 job ids (RFC 9562): 48 bits of millisecond time, then randomness. Time-ordered, so the
 * primary key grows at its end and id order is creation order; random enough not to be guessed.
 *
 * Within one millisecond the 12-bit `rand_a` field is used as a counter (RFC 9562 §6.2, method 1)
 * so ids made by one generator are strictly increasing even when the clock stands still or
 * steps back (a test clock, an NTP correction).
 *
 * The randomness is the Web Crypto API's (`globalThis.crypto`, in Node 20 and in browsers), so
 * the domain imports no Node module.
 */

const POOL_SIZE = 4096;

/**
 * The smallest id a generator can make at millisecond `ms`: every id made at `ms` or later sorts
 * at or after it, so `id < firstIdAt(t)` selects only jobs created before `t`.
 */
export function firstIdAt(ms: number): string {
  const hex = Math.max(0, Math.floor(ms)).toString(16).padStart(12, '0').slice(-12);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-7000-8000-000000000000`;
}

export class UuidV7 {
  private lastMs = -1;
  private counter = 0;
  private readonly pool = Buffer.alloc(POOL_SIZE);
  private poolOffset = POOL_SIZE;

  constructor(private readonly now: () => number) {}

  next(): string {
    let ms = Math.max(0, Math.floor(this.now()));
    if (ms <= this.lastMs) {
      ms = this.lastMs;
      this.counter += 1;
      if (this.counter > 0xfff) {
        // 4096 ids in one millisecond: borrow the next millisecond rather than repeat.
        ms += 1;
        this.counter = 0;
      }
    } else {
      // Start each millisecond's counter low but random, leaving room to count up.
      this.counter = this.randomByte() & 0x7f;
    }
    this.lastMs = ms;
    const bytes = Buffer.alloc(16);
    bytes.writeUIntBE(ms, 0, 6);
    bytes[6] = 0x70 | (this.counter >> 8);
    bytes[7] = this.counter & 0xff;
    this.randomBytes(bytes, 8, 8);
    bytes[8] = 0x80 | ((bytes[8] ?? 0) & 0x3f);
    const hex = bytes.toString('hex');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  }

  private randomByte(): number {
    if (this.poolOffset >= POOL_SIZE) this.refill();
    return this.pool[this.poolOffset++] ?? 0;
  }

  private randomBytes(target: Buffer, offset: number, length: number): void {
    if (this.poolOffset + length > POOL_SIZE) this.refill();
    this.pool.copy(target, offset, this.poolOffset, this.poolOffset + length);
    this.poolOffset += length;
  }

  private refill(): void {
    globalThis.crypto.getRandomValues(this.pool);
    this.poolOffset = 0;
  }
}
