/**
 * A shell job above its process group (processGroup.ts): what the daemon's `shell` executor and
 * `spool work --exec` both make of a command's output and of how it ended, so that the same
 * command gives the same output lines, reports and error text under either.
 *
 * Output (`JobOutput`): the command writes in arbitrary chunks; they are decoded as UTF-8 (a
 * character split across chunks is kept whole), split into lines (a trailing CR is dropped), and
 * a line longer than LIMITS.maxOutputLineBytes is split into several lines of at most that many
 * bytes, so none of it is lost. stdout and stderr lines keep the order they arrived in, and go to
 * the caller's target in small groups (one write per burst rather than per line), one write after
 * the other.
 *
 * A line that is a report (`::spool progress 40 compiling`, `::spool checkpoint {"step":3}`,
 * shared/domain/outputCommands.ts) is recorded as progress or a checkpoint instead, in its place
 * among the lines, and is not kept in the output; of a burst of progress reports only the latest
 * is recorded. A `::spool result <JSON>` line is kept by the output, not recorded: the last one
 * is the result the job completes with. A line that starts with `::spool ` but is not understood is kept, followed by a
 * `log` line saying why. A report the daemon refuses is told in the `log` stream.
 *
 * How it ended (`shellJobOutcome`): exit 0 completes the job with the result its output gave,
 * or `{exitCode: 0}` when it gave none; another exit
 * code, a signal or the job's timeout fails it with a message that says which ("The command
 * exited with code 2.", "The command was killed by SIGKILL after the 30s timeout."), followed
 * by the last lines of stderr; a stop the caller asked for (a cancel, a shutdown) is handed back
 * for the caller to report its own way.
 */
import { StringDecoder } from 'node:string_decoder';
import { formatDuration } from '../domain/durations';
import { parseOutputCommand, type OutputCommand } from '../domain/outputCommands';
import { splitLine } from '../domain/outputLines';
import type { OutputStream } from '../protocol/types';
import type { ProcessGroupExit, TimeoutReason } from './processGroup';
import { errorMessage } from '../protocol/errors';

/** The streams a job's output lines are stored in. */
export type JobOutputStream = Exclude<OutputStream, 'marker'>;

/** What a job's command reported about itself in its output: progress or a checkpoint. */
export type JobReport = Exclude<OutputCommand, { kind: 'invalid' } | { kind: 'result' }>;

/** Where a job's output goes: the daemon's engine, or `jobs.log` calls over a connection. */
export interface JobOutputTarget {
  /** Stores lines of one stream; a rejection is given to onError and ends that write. */
  append(stream: JobOutputStream, lines: string[]): Promise<void>;
  /** Records a report under the runner's lease; a rejection is told in the `log` stream. */
  record(report: JobReport): Promise<void>;
  /** Lines that could not be stored. */
  onError(error: unknown): void;
}

export interface JobOutputOptions {
  /** How long lines wait to be grouped before they are written (default 20 ms). */
  flushDelayMs?: number;
  /** The most lines one append carries (default: no limit). */
  maxBatch?: number;
}

type Queued = { stream: JobOutputStream; text: string } | { report: JobReport };
type Group = { stream: JobOutputStream; lines: string[] } | { report: JobReport };

const FLUSH_DELAY_MS = 20;
/** Non-blank stderr lines kept in memory for the failure message. */
const TAIL_LINES = 20;
/** How much of a line not understood as a report its note quotes. */
const QUOTED_CHARS = 80;

/** A job's output on its way to be stored: see the module comment. */
export class JobOutput {
  private queued: Queued[] = [];
  private timer: NodeJS.Timeout | null = null;
  private readonly partial = { stdout: '', stderr: '' };
  // A chunk from a pipe may end inside a multi-byte character; the decoder keeps those bytes for
  // the next chunk instead of turning them into replacement characters.
  private readonly decoders = { stdout: new StringDecoder('utf8'), stderr: new StringDecoder('utf8') };
  private readonly stderrTail: string[] = [];
  /** The value of the last `::spool result` line, if any. */
  private reported: { value: unknown } | undefined;
  /** Every write so far, in order: each starts after the one before it has been stored. */
  private written: Promise<void> = Promise.resolve();
  private readonly flushDelayMs: number;
  private readonly maxBatch: number;

  constructor(
    private readonly target: JobOutputTarget,
    options: JobOutputOptions = {},
  ) {
    this.flushDelayMs = options.flushDelayMs ?? FLUSH_DELAY_MS;
    this.maxBatch = options.maxBatch ?? Infinity;
  }

  /** A chunk of the command's stdout or stderr. */
  write(stream: 'stdout' | 'stderr', chunk: Buffer): void {
    const text = this.partial[stream] + this.decoders[stream].write(chunk);
    const lines = text.split('\n');
    const rest = lines.pop() ?? '';
    for (const line of lines) this.line(stream, line);
    // A line with no newline yet that is already over the limit: its full pieces go now rather
    // than being held in memory; the last piece waits for the rest of the line.
    const pieces = splitLine(rest);
    this.partial[stream] = pieces.pop() ?? '';
    for (const piece of pieces) this.output(stream, piece);
    this.schedule();
  }

  /** A line the runner itself writes (e.g. "GET … → 200", a signal that could not be sent). */
  log(text: string): void {
    for (const piece of splitLine(text)) this.queued.push({ stream: 'log', text: piece });
    this.schedule();
  }

  /** Writes everything still held, including unterminated last lines; settles once all is stored. */
  flush(): Promise<void> {
    for (const stream of ['stdout', 'stderr'] as const) {
      const rest = this.partial[stream] + this.decoders[stream].end();
      this.partial[stream] = '';
      if (rest !== '') this.line(stream, rest);
    }
    return this.writeQueued();
  }

  /** The result the last `::spool result` line gave, if one did. */
  result(): { value: unknown } | undefined {
    return this.reported;
  }

  /** The last non-blank lines of stderr, for a failure message. */
  tail(): string {
    return this.stderrTail.join('\n');
  }

  /** A whole line of stdout or stderr: a report, or output. */
  private line(stream: 'stdout' | 'stderr', raw: string): void {
    const text = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    const command = parseOutputCommand(text);
    if (command !== null && command.kind === 'result') {
      this.reported = { value: command.result };
      return;
    }
    if (command !== null && command.kind !== 'invalid') {
      const last = this.queued[this.queued.length - 1];
      // Progress reported faster than it is written: only the latest of a burst matters.
      if (command.kind === 'progress' && last !== undefined && 'report' in last && last.report.kind === 'progress') this.queued.pop();
      this.queued.push({ report: command });
      return;
    }
    for (const piece of splitLine(text)) this.output(stream, piece);
    if (command !== null) this.queued.push({ stream: 'log', text: `The line "${text.slice(0, QUOTED_CHARS)}" was not understood as a report: ${command.reason}.` });
  }

  private output(stream: 'stdout' | 'stderr', text: string): void {
    this.queued.push({ stream, text });
    if (stream === 'stderr' && text.trim() !== '') {
      this.stderrTail.push(text);
      if (this.stderrTail.length > TAIL_LINES) this.stderrTail.shift();
    }
  }

  private schedule(): void {
    if (this.timer === null && this.queued.length > 0) {
      this.timer = setTimeout(() => void this.writeQueued(), this.flushDelayMs);
      this.timer.unref();
    }
  }

  private writeQueued(): Promise<void> {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    const groups = groupQueued(this.queued.splice(0), this.maxBatch);
    if (groups.length === 0) return this.written;
    this.written = this.written.then(async () => {
      for (const group of groups) {
        if ('report' in group) {
          await this.report(group.report);
          continue;
        }
        try {
          await this.target.append(group.stream, group.lines);
        } catch (error) {
          this.target.onError(error);
          return;
        }
      }
    });
    return this.written;
  }

  /** A report the daemon refuses is told in the output, where whoever looks at the job sees it. */
  private async report(report: JobReport): Promise<void> {
    try {
      await this.target.record(report);
    } catch (error) {
      const reason = errorMessage(error);
      await this.target.append('log', [`The job's ${report.kind} report was not recorded: ${reason}`]).catch((e: unknown) => this.target.onError(e));
    }
  }
}

/**
 * Consecutive lines of one stream go together (at most `maxBatch` to a group); a change of
 * stream starts a new group, so the interleaving of stdout and stderr is kept. A report is a
 * group of its own, in its place.
 */
function groupQueued(queued: readonly Queued[], maxBatch: number): Group[] {
  const groups: Group[] = [];
  for (const item of queued) {
    const last = groups[groups.length - 1];
    if ('report' in item) groups.push(item);
    else if (last !== undefined && 'lines' in last && last.stream === item.stream && last.lines.length < maxBatch) last.lines.push(item.text);
    else groups.push({ stream: item.stream, lines: [item.text] });
  }
  return groups;
}

/** How a shell job's attempt ended, for its runner to report. */
export type ShellJobOutcome<R extends string> =
  | { kind: 'completed'; result: unknown }
  | { kind: 'failed'; error: string; exitCode?: number; permanent: boolean }
  /** Stopped for a reason the runner gave (a cancel, a shutdown): the runner says what that means. */
  | { kind: 'stopped'; reason: Exclude<R, TimeoutReason> };

export interface ShellJobEnding {
  /** The job's timeout, which the process group applied. */
  timeoutMs: number;
  /** Exit codes that fail the job for good. */
  permanentExitCodes: readonly number[];
  /** The last lines of the command's stderr (JobOutput.tail()). */
  stderrTail: string;
  /** What was started, for the message when it could not be (default /bin/sh). */
  program?: string;
  /** What explains the failure, put before the rest of the message ("Killed: memory limit 512 MiB"). */
  cause?: string | null;
  /** The result the command's output gave (JobOutput.result()); `{exitCode: 0}` is the result without one. */
  result?: { value: unknown } | undefined;
}

/** The job's outcome, and its message, from how its process group ended. */
export function shellJobOutcome<R extends string>(exit: ProcessGroupExit<R>, ending: ShellJobEnding): ShellJobOutcome<R> {
  const { code, signal, stoppedFor } = exit;
  if (exit.spawnError !== null) {
    return { kind: 'failed', error: `Could not start ${ending.program ?? '/bin/sh'}: ${exit.spawnError.message}`, permanent: false };
  }
  const tail = ending.stderrTail.length > 0 ? `\nLast lines of stderr:\n${ending.stderrTail}` : '';
  const exitCode = code === null ? {} : { exitCode: code };
  if (stoppedFor === 'timeout') {
    const timeout = `the ${formatDuration(ending.timeoutMs)} timeout`;
    const how = code === null ? `was killed by ${signal ?? 'a signal'} after ${timeout}` : `was stopped after ${timeout} and exited with code ${code}`;
    return { kind: 'failed', error: `The command ${how}.${tail}`, ...exitCode, permanent: false };
  }
  // Every reason but the timeout is the runner's own.
  if (stoppedFor !== null) return { kind: 'stopped', reason: stoppedFor as Exclude<R, TimeoutReason> };
  if (code === 0) return { kind: 'completed', result: ending.result === undefined ? { exitCode: 0 } : ending.result.value };
  const lead = ending.cause === undefined || ending.cause === null ? '' : `${ending.cause}. `;
  if (code !== null) {
    return { kind: 'failed', error: `${lead}The command exited with code ${code}.${tail}`, exitCode: code, permanent: ending.permanentExitCodes.includes(code) };
  }
  return { kind: 'failed', error: `${lead}The command was killed by ${signal ?? 'a signal'}.${tail}`, permanent: false };
}
