/**
 * "Did you mean" hints. A queue is created by its first enqueue, so a mistyped name is never an
 * error: `spool enqueue bulids` makes a queue no worker serves, `spool jobs --queue bulids`
 * finds nothing and `spool work imgaes` waits for jobs that never come. These commands point the
 * mistake out with the closest existing name; `spool rpc` does the same for a mistyped method.
 */
import type { SpoolClient } from '../shared/client';

/** The names of the queues that exist now. */
export async function queueNames(client: SpoolClient): Promise<string[]> {
  return (await client.call('queues.list')).queues.map((q) => q.name);
}

/**
 * After an enqueue made a new queue: a note if its name is close to one that existed (a typo
 * that would otherwise leave the job waiting in a queue no worker serves), else null.
 */
export function newQueueNote(name: string, before: readonly string[]): string | null {
  if (before.includes(name)) return null;
  const near = closest(name, before);
  return near === null ? null : `This made a new queue, "${name}"; did you mean "${near}"?`;
}

/** A note for each named queue that does not exist, or null when they all do. */
export async function unknownQueueNote(client: SpoolClient, names: readonly string[]): Promise<string | null> {
  const existing = await queueNames(client);
  const missing = names.filter((name) => !existing.includes(name));
  if (missing.length === 0) return null;
  return missing
    .map((name) => {
      const near = closest(name, existing);
      return `There is no queue named "${name}" yet${near ? `; did you mean "${near}"?` : ` (queues: ${listed(existing)}).`}`;
    })
    .join('\n');
}

function listed(names: readonly string[]): string {
  if (names.length === 0) return 'none';
  return names.length <= 10 ? names.join(', ') : `${names.slice(0, 10).join(', ')} and ${names.length - 10} more`;
}

/**
 * The existing name within two edits of `name` (the nearest, first on ties), if any; one edit
 * per three characters at most, so that short names ("q1", "q2") are not taken for typos.
 */
export function closest(name: string, candidates: readonly string[]): string | null {
  let best: string | null = null;
  let bestDistance = Math.min(2, Math.floor(name.length / 3)) + 1;
  for (const candidate of candidates) {
    const d = editDistance(name, candidate);
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}

/** Levenshtein distance, with a swap of two neighbours counted as one edit ("imgaes"). */
function editDistance(a: string, b: string): number {
  const width = b.length + 1;
  const d = new Array<number>((a.length + 1) * width).fill(0);
  const at = (i: number, j: number): number => d[i * width + j] ?? 0;
  for (let i = 0; i <= a.length; i++) d[i * width] = i;
  for (let j = 0; j <= b.length; j++) d[j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      let v = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, at(i - 2, j - 2) + 1);
      d[i * width + j] = v;
    }
  }
  return at(a.length, b.length);
}
