/**
 * "Did you mean" hints. A queue is created by its first enqueue, so a mistyped name is never an
 * error: `spool enqueue bulids` makes a queue no worker serves, `spool jobs --queue bulids`
 * finds nothing and `spool work imgaes` waits for jobs that never come. These commands point the
 * mistake out with the closest existing name (shared/domain/present's suggester, the one the
 * jobs file's checks use); `spool rpc` does the same for a mistyped method.
 */
import type { SpoolClient } from '../shared/client/client';
import { closest } from '../shared/domain/present';

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
  return near === undefined ? null : `This made a new queue, "${name}"; did you mean "${near}"?`;
}

/** A note for each named queue that does not exist, or null when they all do. */
export async function unknownQueueNote(client: SpoolClient, names: readonly string[]): Promise<string | null> {
  const existing = await queueNames(client);
  const missing = names.filter((name) => !existing.includes(name));
  if (missing.length === 0) return null;
  return missing
    .map((name) => {
      const near = closest(name, existing);
      return `There is no queue named "${name}" yet${near !== undefined ? `; did you mean "${near}"?` : ` (queues: ${listed(existing)}).`}`;
    })
    .join('\n');
}

function listed(names: readonly string[]): string {
  if (names.length === 0) return 'none';
  return names.length <= 10 ? names.join(', ') : `${names.slice(0, 10).join(', ')} and ${names.length - 10} more`;
}
