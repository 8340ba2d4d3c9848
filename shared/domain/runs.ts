/**
 * Telling a job's runs apart in its output, the same way in `spool logs` and in the editor's
 * output document: a heading line where each run's lines begin after another run's.
 */
import type { OutputLine } from '../protocol/types';

/**
 * Which run a line belongs to, as a key to compare with the previous line's. Lines from before
 * run numbers were recorded (run 0) only know their attempt. The dropped-lines marker belongs to
 * no run (null): it stands where the dropped lines were.
 */
export function runKey(line: Pick<OutputLine, 'run' | 'attempt' | 'stream'>): string | null {
  if (line.stream === 'marker') return null;
  return line.run === 0 ? `attempt ${line.attempt}` : `run ${line.run}`;
}

/** The heading printed where a run's lines begin, after another run's. */
export function runHeading(line: Pick<OutputLine, 'run' | 'attempt'>): string {
  return line.run === 0 ? `--- attempt ${line.attempt} ---` : `--- run ${line.run} (attempt ${line.attempt}) ---`;
}
