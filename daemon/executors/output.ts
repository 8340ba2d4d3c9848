/**
 * Job output from a built-in executor, on its way to the engine. Child processes write in
 * arbitrary chunks; this splits them into lines (a line longer than the per-line limit is cut
 * into pieces), keeps stdout and stderr lines in the order they arrived, and hands them to the
 * engine in small groups — one transaction per burst rather than per line. The engine stores
 * them (capped per job) and emits them to `jobs.output` subscribers.
 *
 * A line of stdout or stderr that is a report (`::spool progress 40 compiling`, `::spool
 * checkpoint {"step":3}`, shared/domain/output-commands.ts) goes to the engine as progress or a
 * checkpoint instead, in its place among the lines, and is not kept in the output; one that
 * starts with `::spool ` but is not understood is kept, followed by a `log` line saying why.
 */
import { StringDecoder } from 'node:string_decoder';
import { LIMITS } from '../../shared/protocol';
import { splitLine } from '../../shared/domain/output-lines';
import { parseOutputCommand, type OutputCommand } from '../../shared/domain/output-commands';

export type ExecutorStream = 'stdout' | 'stderr' | 'log';

/** Appends lines of one stream; rejects if the engine refuses them. */
export type AppendLines = (stream: ExecutorStream, lines: string[]) => Promise<void>;

/** What a job's command reported about itself in its output: progress or a checkpoint. */
export type JobReport = Exclude<OutputCommand, { kind: 'invalid' }>;

/** Records a report as the job's progress or checkpoint; rejects if the engine refuses it. */
export type RecordReport = (report: JobReport) => Promise<void>;

type Queued = { stream: ExecutorStream; text: string } | { report: JobReport };

/** How long lines wait to be grouped before they are written. */
const FLUSH_DELAY_MS = 20;
/** Stderr lines kept in memory for the failure message. */
const TAIL_LINES = 20;

export class OutputSink {
  private queued: Queued[] = [];
  private timer: NodeJS.Timeout | null = null;
  private readonly partial = new Map<ExecutorStream, string>();
  private readonly decoders = new Map<ExecutorStream, StringDecoder>();
  private readonly stderrTail: string[] = [];
  /** Every write so far, in order: each starts after the one before it has been stored. */
  private written: Promise<void> = Promise.resolve();

  constructor(
    private readonly append: AppendLines,
    private readonly onError: (error: unknown) => void,
    /** Where reports go; without it, `::spool` lines are ordinary output. */
    private readonly record?: RecordReport,
  ) {}

  /** A chunk of a child's stdout or stderr. */
  write(stream: ExecutorStream, chunk: Buffer): void {
    let decoder = this.decoders.get(stream);
    if (!decoder) this.decoders.set(stream, (decoder = new StringDecoder('utf8')));
    const text = (this.partial.get(stream) ?? '') + decoder.write(chunk);
    const pieces = text.split('\n');
    this.partial.set(stream, pieces.pop() ?? '');
    for (const piece of pieces) this.line(stream, piece);
    // A line with no newline yet that is already over the limit is cut here, not held forever.
    const rest = this.partial.get(stream) ?? '';
    if (Buffer.byteLength(rest) > LIMITS.maxOutputLineBytes) {
      this.partial.set(stream, '');
      this.line(stream, rest);
    }
  }

  /** A line the executor itself writes (e.g. "GET … → 200"). */
  log(text: string): void {
    this.line('log', text);
  }

  /** Writes everything still held, including unterminated last lines; settles once all is stored. */
  flush(): Promise<void> {
    for (const [stream, rest] of this.partial) {
      const decoder = this.decoders.get(stream);
      const text = rest + (decoder ? decoder.end() : '');
      this.partial.set(stream, '');
      if (text.length > 0) this.line(stream, text);
    }
    return this.writeQueued();
  }

  /** The last lines of stderr, for a failure message. */
  tail(): string {
    return this.stderrTail.join('\n');
  }

  private line(stream: ExecutorStream, raw: string): void {
    const text = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    const command = this.record !== undefined && stream !== 'log' ? parseOutputCommand(text) : null;
    if (command !== null && command.kind !== 'invalid') {
      const last = this.queued[this.queued.length - 1];
      // Progress reported faster than it is written: only the latest of a burst matters.
      if (command.kind === 'progress' && last !== undefined && 'report' in last && last.report.kind === 'progress') this.queued.pop();
      this.queued.push({ report: command });
      this.schedule();
      return;
    }
    for (const piece of splitLine(text)) {
      this.queued.push({ stream, text: piece });
      if (stream === 'stderr') {
        this.stderrTail.push(piece);
        if (this.stderrTail.length > TAIL_LINES) this.stderrTail.shift();
      }
    }
    if (command !== null) this.queued.push({ stream: 'log', text: `The line above was not understood as a report: ${command.reason}.` });
    this.schedule();
  }

  private schedule(): void {
    if (!this.timer) {
      this.timer = setTimeout(() => void this.writeQueued(), FLUSH_DELAY_MS);
      this.timer.unref();
    }
  }

  private writeQueued(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const queued = this.queued;
    this.queued = [];
    // Consecutive lines of one stream go together; a change of stream starts a new call, so the
    // interleaving of stdout and stderr is kept. A report is a call of its own, in its place.
    const groups: ({ stream: ExecutorStream; lines: string[] } | { report: JobReport })[] = [];
    let i = 0;
    while (i < queued.length) {
      const first = queued[i];
      if ('report' in first) {
        groups.push(first);
        i++;
        continue;
      }
      const lines: string[] = [];
      while (i < queued.length) {
        const item = queued[i];
        if (!('text' in item) || item.stream !== first.stream) break;
        lines.push(item.text);
        i++;
      }
      groups.push({ stream: first.stream, lines });
    }
    if (groups.length === 0) return this.written;
    this.written = this.written.then(async () => {
      for (const group of groups) {
        if ('report' in group) {
          await this.report(group.report);
          continue;
        }
        try {
          await this.append(group.stream, group.lines);
        } catch (error) {
          this.onError(error);
          return;
        }
      }
    });
    return this.written;
  }

  /** A report the engine refuses is told in the output, where whoever looks at the job sees it. */
  private async report(report: JobReport): Promise<void> {
    try {
      await this.record?.(report);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      await this.append('log', [`The job's ${report.kind} report was not recorded: ${reason}`]).catch((e: unknown) => this.onError(e));
    }
  }
}
