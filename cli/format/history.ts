/**
 * `spool stats --history`: one line per queue and minute or hour, oldest first; times in UTC.
 * `spool job ID --history`: one line per change of the job, oldest first.
 */
import type { HistoryPoint, JobHistoryEvent } from '../../shared/protocol';
import { formatDuration } from '../../shared/domain/durations';
import type { Colors } from './color';
import { renderTable, type Column } from './table';

function ms(v: number | null): string {
  return v === null ? '-' : formatDuration(v);
}

const COLUMNS: readonly Column<HistoryPoint>[] = [
  { header: 'TIME (UTC)', value: (p) => new Date(p.at).toISOString().slice(0, 16).replace('T', ' ') },
  { header: 'QUEUE', value: (p) => p.queue },
  { header: 'ENQUEUED', value: (p) => String(p.enqueued), right: true },
  { header: 'STARTED', value: (p) => String(p.started), right: true },
  { header: 'COMPLETED', value: (p) => String(p.completed), right: true },
  { header: 'FAILED', value: (p) => String(p.failed), right: true },
  { header: 'DEAD', value: (p) => String(p.dead), right: true },
  { header: 'CANCELLED', value: (p) => String(p.cancelled), right: true },
  { header: 'WAIT P50', value: (p) => ms(p.waitP50), right: true },
  { header: 'WAIT P95', value: (p) => ms(p.waitP95), right: true },
  { header: 'RUN P50', value: (p) => ms(p.runP50), right: true },
  { header: 'RUN P95', value: (p) => ms(p.runP95), right: true },
  { header: 'BACKLOG', value: (p) => String(p.backlog), right: true },
  { header: 'RUNNING', value: (p) => String(p.running), right: true },
];

export function historyTable(points: readonly HistoryPoint[], c: Colors): string {
  const sorted = [...points].sort((a, b) => a.queue.localeCompare(b.queue) || a.at - b.at);
  return renderTable(sorted, COLUMNS, (s) => c.bold(s));
}

const EVENT_COLUMNS: readonly Column<JobHistoryEvent>[] = [
  { header: 'TIME (UTC)', value: (e) => new Date(e.at).toISOString().slice(0, 23).replace('T', ' ') },
  { header: 'STATE', value: (e) => e.state },
  { header: 'CAUSE', value: (e) => e.cause },
  { header: 'BY', value: (e) => e.who ?? '-' },
  { header: 'ATTEMPT', value: (e) => (e.attempt === null ? '-' : String(e.attempt)), right: true },
  { header: 'DETAIL', value: (e) => e.detail ?? '' },
];

export function jobHistoryTable(events: readonly JobHistoryEvent[], c: Colors): string {
  return renderTable(events, EVENT_COLUMNS, (s) => c.bold(s));
}
