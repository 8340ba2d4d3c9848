/**
 * Lines a job's command prints to report on itself, without knowing a worker id or speaking
 * JSON-RPC: the daemon's shell executor and `spool work` read them from the command's stdout and
 * stderr and turn them into `jobs.progress` and `jobs.checkpoint` calls under their own lease.
 *
 *     ::spool progress 40 compiling
 *     ::spool checkpoint {"step":3}
 *     ::spool result {"artifact":"dist/app.tar.gz"}
 *
 * `progress` takes a percentage from 0 to 100 (a fraction is allowed) and an optional message,
 * the rest of the line; `checkpoint` takes one JSON value (`null` clears the saved checkpoint);
 * `result` takes one JSON value, the job's result when it completes (the last one wins), which
 * is handed to the jobs that depend on it.
 * A line that starts with `::spool ` but is not one of these is an `invalid` command, which the
 * runners keep in the output with a note saying why it was not understood.
 */
import { errorMessage } from '../protocol/errors';

/** What a line of output asks for. */
export type OutputCommand =
  | { kind: 'progress'; percent: number; message: string | null }
  | { kind: 'checkpoint'; checkpoint: unknown }
  | { kind: 'result'; result: unknown }
  | { kind: 'invalid'; reason: string };

/** Every command line starts with this. */
export const OUTPUT_COMMAND_PREFIX = '::spool ';

const PROGRESS = /^progress[ \t]+([0-9]+(?:\.[0-9]+)?)(?:[ \t]+(.*))?$/;
const CHECKPOINT = /^checkpoint[ \t]+(.+)$/;
const RESULT = /^result[ \t]+(.+)$/;

/** The command in `line`, or null when the line is ordinary output. */
export function parseOutputCommand(line: string): OutputCommand | null {
  if (!line.startsWith(OUTPUT_COMMAND_PREFIX)) return null;
  const rest = line.slice(OUTPUT_COMMAND_PREFIX.length).trim();
  if (rest.startsWith('progress')) {
    const match = PROGRESS.exec(rest);
    const percent = match === null ? NaN : Number(match[1]);
    if (match === null || !(percent >= 0 && percent <= 100)) {
      return { kind: 'invalid', reason: 'write "::spool progress <0 to 100> [message]", e.g. "::spool progress 40 compiling"' };
    }
    const message = match[2]?.trim() ?? '';
    return { kind: 'progress', percent, message: message === '' ? null : message };
  }
  if (rest.startsWith('checkpoint')) {
    const match = CHECKPOINT.exec(rest);
    if (match !== null) {
      try {
        return { kind: 'checkpoint', checkpoint: JSON.parse(match[1]) as unknown };
      } catch (error) {
        return { kind: 'invalid', reason: `the checkpoint is not JSON (${errorMessage(error)}); write e.g. '::spool checkpoint {"step":3}'` };
      }
    }
    return { kind: 'invalid', reason: `write "::spool checkpoint <JSON>", e.g. '::spool checkpoint {"step":3}'` };
  }
  if (rest.startsWith('result')) {
    const match = RESULT.exec(rest);
    if (match !== null) {
      try {
        return { kind: 'result', result: JSON.parse(match[1]) as unknown };
      } catch (error) {
        return { kind: 'invalid', reason: `the result is not JSON (${errorMessage(error)}); write e.g. '::spool result {"artifact":"dist/app.tar.gz"}'` };
      }
    }
    return { kind: 'invalid', reason: `write "::spool result <JSON>", e.g. '::spool result {"artifact":"dist/app.tar.gz"}'` };
  }
  return { kind: 'invalid', reason: 'the commands are "::spool progress <0 to 100> [message]", "::spool checkpoint <JSON>" and "::spool result <JSON>"' };
}
