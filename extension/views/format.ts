/** Small text helpers the views share: relative times, payload summaries, cron in words. */
import { formatDuration } from '../../shared/domain/durations';
import type { Job } from '../../shared/types';

/** "3s ago", "in 4m", "2h ago", "5d ago". */
export function relativeTime(at: number, now = Date.now()): string {
  const diff = at - now;
  const unit = formatDuration(diff, 1);
  return diff > 0 ? `in ${unit}` : `${unit} ago`;
}

function field(payload: unknown, name: string): string | undefined {
  if (typeof payload !== 'object' || payload === null || !(name in payload)) return undefined;
  const value: unknown = Reflect.get(payload, name);
  return typeof value === 'string' ? value : undefined;
}

/** The shell command, the http method and URL, or the JSON payload, cut to fit a tree line. */
export function payloadSummary(kind: string, payload: unknown, max = 80): string {
  let text: string;
  if (kind === 'shell') text = field(payload, 'command') ?? JSON.stringify(payload);
  else if (kind === 'http') text = `${(field(payload, 'method') ?? 'GET').toUpperCase()} ${field(payload, 'url') ?? ''}`;
  else text = payload === undefined || payload === null ? '' : JSON.stringify(payload);
  text = text.replace(/\s+/g, ' ').trim();
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

export function jobLabel(job: Job): string {
  const summary = payloadSummary(job.kind, job.payload);
  return summary === '' ? job.kind : `${job.kind}: ${summary}`;
}

export function shortId(id: string): string {
  return id.length > 8 ? id.slice(-8) : id;
}

const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/** Common cron expressions in words ("every 5 minutes", "every day at 03:00"); others as written. */
export function cronInWords(cron: string): string {
  const parts = cron.trim().split(/\s+/);
  if (parts.length === 6) {
    const [sec, ...rest] = parts;
    if (rest.every((p) => p === '*')) {
      if (sec === '*') return 'every second';
      const m = /^\*\/(\d+)$/.exec(sec ?? '');
      if (m) return `every ${m[1]} seconds`;
    }
    return cron;
  }
  if (parts.length !== 5) return cron;
  const [min, hour, dom, mon, dow] = parts;
  const every = (p: string | undefined): string | null => /^\*\/(\d+)$/.exec(p ?? '')?.[1] ?? null;
  const num = (p: string | undefined): number | null => (p !== undefined && /^\d+$/.test(p) ? Number(p) : null);
  const rest = [dom, mon, dow];
  if (min === '*' && hour === '*' && rest.every((p) => p === '*')) return 'every minute';
  const n = every(min);
  if (n && hour === '*' && rest.every((p) => p === '*')) return `every ${n} minutes`;
  const m = num(min);
  const h = num(hour);
  if (m !== null && hour === '*' && rest.every((p) => p === '*')) return m === 0 ? 'every hour' : `every hour at :${String(m).padStart(2, '0')}`;
  const hn = every(hour);
  if (m !== null && hn && rest.every((p) => p === '*')) return `every ${hn} hours`;
  if (m !== null && h !== null && dom === '*' && mon === '*') {
    const time = `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`;
    if (dow === '*') return `every day at ${time}`;
    if (dow === '1-5') return `weekdays at ${time}`;
    const d = num(dow);
    if (d !== null && d <= 7) return `every ${DAYS[d % 7]} at ${time}`;
  }
  return cron;
}
