/**
 * Workflow runs in words, one way in the CLI, the language server's lens and the extension: a
 * step's state (a job's state, said as a step's outcome: a completed job is a step that
 * `succeeded`, a dead one a step that `failed`, the words of a run's state and of `needs`), and a
 * run's counts ("4 succeeded, 1 running, 2 blocked").
 */
import type { JobState } from '../../protocol/types';

/** The word for a step (or a matrix instance) whose job is in `state`. */
export function stepStateWord(state: JobState): string {
  if (state === 'completed') return 'succeeded';
  if (state === 'dead') return 'failed';
  return state;
}

/** The order counts are said in: what is under way first, then what ended, then what waits. */
const COUNT_ORDER: readonly JobState[] = ['running', 'retrying', 'queued', 'held', 'completed', 'dead', 'cancelled', 'blocked'];

/** "4 succeeded, 1 running": the states with jobs, in the words of `stepStateWord`; "no jobs" when there are none. */
export function runCountsText(counts: Readonly<Partial<Record<JobState, number>>>): string {
  const parts = COUNT_ORDER.flatMap((state) => {
    const n = counts[state] ?? 0;
    return n > 0 ? [`${n} ${stepStateWord(state)}`] : [];
  });
  return parts.length === 0 ? 'no jobs' : parts.join(', ');
}
