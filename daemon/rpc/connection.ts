/**
 * One client connection to the daemon's socket: framing in (LineSplitter), JSON lines out, with
 * back-pressure both ways. What a connection owns — its subscriptions, the worker ids that spoke
 * through it, its waiting claims — is released through `onClose` when it ends, whatever the reason.
 */
import type * as net from 'node:net';
import { LineSplitter } from '../../shared/protocol/lines';
import { LIMITS } from '../../shared/protocol';
import type { ConnectionAuth } from './auth';
import { MAX_DEPTH } from './envelope';
import type { BudgetHolder, InputBudget } from './inputBudget';

/** Above this many unsent bytes the connection stops reading requests until the peer catches up. */
const PAUSE_READING_BYTES = 4 * 1024 * 1024;
/**
 * Lines handled at a time: each read, and each later turn of the event loop while lines are
 * waiting, handles at most this many. A pipelined burst is taken in slices: the writes of one
 * slice commit together (group commit) and their answers leave while the next slice is being
 * handled, so a client reads answers and sends new requests while the daemon works instead of
 * both taking turns; other connections get their turn between slices too. Smaller slices mean
 * more commits: 100,000 pipelined enqueues (window 256) took 2.9-3.2 s handled whole, 2.7-2.9 s
 * in slices of 32 or 64, 2.6-2.7 s in slices of 128, 2.8-3.5 s in slices of 256.
 */
const LINES_PER_TURN = 128;
/** Above this many lines read but not yet handled, the connection stops reading. */
const PAUSE_READING_LINES = 8192;
/**
 * A peer that lets this much pile up (it subscribed but does not read) is disconnected rather
 * than allowed to grow the daemon's memory without bound; clients reconnect and resubscribe.
 */
const MAX_UNSENT_BYTES = 64 * 1024 * 1024;

export interface ConnectionHandlers {
  onLine(connection: RpcConnection, line: string): void;
  /** A line over the connection's limit (`maxLineBytes`): answered with an error, then the connection is closed. */
  onOverflow(connection: RpcConnection, bytes: number): void;
  /** A line nesting deeper than MAX_DEPTH, dropped as it arrived: answered with an error. */
  onTooDeep(connection: RpcConnection): void;
  onInvalidUtf8(connection: RpcConnection, bytes: number): void;
  /**
   * The unfinished lines of all connections passed the daemon's budget and this connection's
   * (`held` bytes) was the largest: its line has been dropped; answer with an error and close.
   */
  onOverBudget(connection: RpcConnection, held: number, total: number, limit: number): void;
}

export class RpcConnection implements BudgetHolder {
  /** Worker ids that called worker methods over this connection; marked gone when it closes. */
  readonly workerIds = new Set<string>();
  /** How the connection came in, and over TCP what it logged in as (rpc/auth.ts). */
  auth: ConnectionAuth = { transport: 'unix' };
  private readonly loginListeners: (() => void)[] = [];
  private readonly closeListeners: (() => void)[] = [];
  private readonly hangUpListeners: (() => void)[] = [];
  private closed = false;
  private readingPaused = false;
  /** Lines (and framing errors, in their place) read but not handled yet; `nextInput` is the first. */
  private input: (() => void)[] = [];
  private nextInput = 0;
  private inputScheduled = false;
  private outgoing: string[] = [];
  private outgoingChars = 0;
  private flushScheduled = false;
  private ending = false;
  /** Requests read but not yet answered, and whether the peer has half-closed its side. */
  private inFlight = 0;
  private peerEnded = false;
  /** endWhenAnswered was called: no new requests are handled, and the connection ends when the last answer is queued. */
  private draining = false;
  private readonly splitter: LineSplitter;
  /** Bytes of an unfinished line last reported to the budget. */
  private partialBytes = 0;
  private lineLimit = LIMITS.maxLineBytes;

  constructor(
    readonly id: number,
    private readonly socket: net.Socket,
    private readonly handlers: ConnectionHandlers,
    private readonly onTooSlow: (connection: RpcConnection, unsent: number) => void,
    private readonly budget: InputBudget,
  ) {
    const splitter = new LineSplitter({
      maxLineBytes: LIMITS.maxLineBytes,
      onLine: (line) => this.input.push(() => handlers.onLine(this, line)),
      onOverflow: (bytes) => this.input.push(() => handlers.onOverflow(this, bytes)),
      onInvalidUtf8: (bytes) => this.input.push(() => handlers.onInvalidUtf8(this, bytes)),
      maxDepth: MAX_DEPTH,
      onTooDeep: () => this.input.push(() => handlers.onTooDeep(this)),
    });
    this.splitter = splitter;
    // After `end`, whatever the peer still sends is read (so its hang-up is seen) and dropped.
    socket.on('data', (data: Buffer) => {
      if (this.ending) return;
      splitter.push(data);
      if (splitter.buffered !== this.partialBytes) {
        this.partialBytes = splitter.buffered;
        this.budget.update(this, this.partialBytes);
      }
      this.handleInput();
    });
    socket.on('drain', () => this.updateReading());
    // `echo '{…}' | socat - UNIX-CONNECT:…` sends its request and half-closes at once. The server
    // keeps its own side open (allowHalfOpen) until every request read so far is answered.
    socket.on('end', () => {
      this.peerEnded = true;
      this.hungUp();
      this.endIfAnswered();
    });
    // 'close' always follows 'error'; the server logs unexpected errors there.
    socket.on('error', () => this.finish());
    socket.on('close', () => this.finish());
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** The longest line this connection may send now, in bytes. */
  get maxLineBytes(): number {
    return this.lineLimit;
  }

  /** Sets the longest line this connection may send from now on (less before a TLS login). */
  limitLines(bytes: number): void {
    this.lineLimit = bytes;
    this.splitter.setMaxLineBytes(bytes);
  }

  /**
   * Sends one message (a response, a batch or a notification) as a line. Lines sent in one
   * event-loop turn (often the answers to a whole pipelined burst) leave in one write.
   */
  send(message: unknown): void {
    if (this.closed || this.ending) return;
    // What the peer has not read yet, before this message: one large answer (a claim of many
    // big payloads) is always sent; a peer that leaves earlier answers unread is cut off.
    const unsent = this.socket.writableLength + this.outgoingChars;
    if (unsent > MAX_UNSENT_BYTES) {
      this.onTooSlow(this, unsent);
      this.close();
      return;
    }
    const line = JSON.stringify(message) + '\n';
    this.outgoing.push(line);
    this.outgoingChars += line.length;
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      setImmediate(() => this.flushOutgoing());
    }
  }

  private flushOutgoing(): void {
    this.flushScheduled = false;
    if (this.closed || this.outgoing.length === 0) return;
    const data = this.outgoing.length === 1 ? this.outgoing[0] : this.outgoing.join('');
    this.outgoing = [];
    this.outgoingChars = 0;
    this.socket.write(data);
    this.updateReading();
  }

  /** Handles up to LINES_PER_TURN of what was read, and the rest in later turns. */
  private handleInput(): void {
    const last = Math.min(this.input.length, this.nextInput + LINES_PER_TURN);
    while (this.nextInput < last && !this.ending && !this.closed && !this.draining) {
      const handle = this.input[this.nextInput];
      this.input[this.nextInput++] = noop;
      handle?.();
    }
    if (this.nextInput >= this.input.length || this.ending || this.closed || this.draining) {
      this.input = [];
      this.nextInput = 0;
    } else if (this.nextInput >= PAUSE_READING_LINES) {
      // A peer that never lets the backlog empty must not grow the array by what was handled.
      this.input = this.input.slice(this.nextInput);
      this.nextInput = 0;
    }
    if (this.nextInput < this.input.length && !this.inputScheduled) {
      this.inputScheduled = true;
      setImmediate(() => {
        this.inputScheduled = false;
        this.handleInput();
      });
    }
    this.updateReading();
    this.endIfAnswered();
  }

  /** Reads while the peer is keeping up with the answers and the unhandled lines are few. */
  private updateReading(): void {
    if (this.closed) return;
    const backlog = !this.ending && (this.socket.writableLength > PAUSE_READING_BYTES || this.input.length - this.nextInput > PAUSE_READING_LINES);
    if (backlog && !this.readingPaused) {
      this.readingPaused = true;
      this.socket.pause();
    } else if (!backlog && this.readingPaused) {
      this.readingPaused = false;
      this.socket.resume();
    }
  }

  /**
   * Counts a request as in flight until `answered` settles. Pass the promise that sends the
   * answer, so a peer that has half-closed is ended only after its last answer is queued.
   */
  track(answered: PromiseLike<unknown>): void {
    this.inFlight++;
    const settle = (): void => {
      this.inFlight--;
      this.endIfAnswered();
    };
    answered.then(settle, settle);
  }

  private endIfAnswered(): void {
    if (this.draining && this.inFlight === 0) this.end();
    else if (this.peerEnded && this.inFlight === 0 && this.nextInput >= this.input.length) this.end();
  }

  /**
   * Ends the connection once the requests already being handled have been answered (at most
   * `maxWaitMs` later), handling no further ones: at shutdown, a write the daemon committed
   * still gets its answer, so the client does not send it again.
   */
  endWhenAnswered(maxWaitMs: number): void {
    if (this.closed || this.ending || this.draining) return;
    this.draining = true;
    this.endIfAnswered();
    if (!this.ending) setTimeout(() => this.end(), maxWaitMs).unref();
  }

  /** Part of BudgetHolder: drops the unfinished line (the budget has released it) and says why. */
  refuseOverBudget(held: number, total: number, limit: number): void {
    this.dropPartialLine();
    this.handlers.onOverBudget(this, held, total, limit);
  }

  /** Nothing more is read: the unfinished line's memory goes back, and the budget forgets it. */
  private dropPartialLine(): void {
    this.splitter.discard();
    this.partialBytes = 0;
    this.budget.release(this);
  }

  /** Sends what is queued, then closes. */
  end(lastMessage?: unknown): void {
    if (this.closed || this.ending) return;
    this.ending = true;
    this.dropPartialLine();
    this.flushOutgoing();
    if (lastMessage !== undefined) this.socket.write(JSON.stringify(lastMessage) + '\n');
    this.socket.end();
    this.updateReading();
    // A peer that never reads (or never hangs up) would keep the socket forever.
    setTimeout(() => this.close(), 2000).unref();
  }

  close(): void {
    this.socket.destroy();
    this.finish();
  }

  /**
   * Called once when the peer stops sending (half-close or full close) or the connection closes.
   * A half-closed peer and a worker process that died look the same from here, so what must not
   * outlive the worker (its waiting claims) is released at this point, not at 'close'.
   */
  onHangUp(listener: () => void): void {
    if (this.peerEnded || this.closed) listener();
    else this.hangUpListeners.push(listener);
  }

  private hungUp(): void {
    for (const listener of this.hangUpListeners.splice(0)) listener();
  }

  /** Called once the connection has logged in (over TCP). */
  onLoggedIn(listener: () => void): void {
    this.loginListeners.push(listener);
  }

  /** The connection has logged in: told to the listeners (the server stops its login timer). */
  loggedIn(): void {
    for (const listener of this.loginListeners.splice(0)) listener();
  }

  onClose(listener: () => void): void {
    if (this.closed) listener();
    else this.closeListeners.push(listener);
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    this.dropPartialLine();
    this.hungUp();
    for (const listener of this.closeListeners.splice(0)) listener();
  }
}

function noop(): void {}
