/**
 * A shell job's or a queue's resource limits as people read them, in the syntax the CLI's
 * options take: `memory 512 MiB, CPU time 30s, open files 64, processes 100`.
 */
import type { ResourceLimits } from '../protocol/types';
import { formatDuration } from './durations';
import { formatSize } from './sizes';

/** The limits set, in a line; `none` when there are none. */
export function formatLimits(limits: ResourceLimits): string {
  const parts: string[] = [];
  if (limits.memoryBytes !== undefined) parts.push(`memory ${formatSize(limits.memoryBytes)}`);
  if (limits.cpuSeconds !== undefined) parts.push(`CPU time ${formatDuration(limits.cpuSeconds * 1000)}`);
  if (limits.openFiles !== undefined) parts.push(`open files ${limits.openFiles}`);
  if (limits.processes !== undefined) parts.push(`processes ${limits.processes}`);
  return parts.length > 0 ? parts.join(', ') : 'none';
}
