/**
 * A queue's resource limits after a configure (the same for every store): `null` removes them
 * all, a field set to null removes that one, a field left out keeps it.
 */
import type { ResourceLimits } from '../../shared/protocol/types';
import type { ConfigureInput } from './validate/queues';

export function changedLimits(current: ResourceLimits, changes: ConfigureInput['limits']): ResourceLimits {
  if (changes === undefined) return current;
  if (changes === null) return {};
  const limits: ResourceLimits = { ...current };
  for (const key of ['memoryBytes', 'cpuSeconds', 'openFiles', 'processes'] as const) {
    const change = changes[key];
    if (change === null) delete limits[key];
    else if (change !== undefined) limits[key] = change;
  }
  return limits;
}
