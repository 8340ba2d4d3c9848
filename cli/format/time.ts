/**
 * Times as a person reads them in a table or a details view, with the CLI's clock as the default
 * `now`: the wording is shared/domain/present's, the same as the extension's.
 */
import { formatDuration } from '../../shared/domain/durations';
import { formatTimestamp, relativeTime } from '../../shared/domain/present';

/** Durations print in the syntax they are typed in, the same in the extension (shared/domain). */
export { formatDuration, formatTimestamp };

/** `3s ago`, `in 5m`, `just now`; `-` for null. */
export function formatRelative(at: number | null, now = Date.now()): string {
  return relativeTime(at, now);
}
