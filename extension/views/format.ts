/**
 * Small text helpers the views share: payload summaries and job labels. Relative times and the
 * shown end of a job id are shared/domain/present's (the CLI writes them the same), passed on
 * here; cron in words is the domain's describeCron.
 */
import type { Job } from '../../shared/protocol/types';

export { relativeTime, shortId } from '../../shared/domain/present';

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

/**
 * A job's tree label: what it runs, so the useful part survives when a narrow view cuts it. A
 * shell job is its command and an http job its method and URL (their kind shows in the icon's
 * tooltip); any other kind leads with the kind, which says more than its payload.
 */
export function jobLabel(job: Job): string {
  const summary = payloadSummary(job.kind, job.payload);
  if (summary === '') return job.kind;
  return job.kind === 'shell' || job.kind === 'http' ? summary : `${job.kind}: ${summary}`;
}


/**
 * The dead-jobs badge: the count and a tooltip that says what it counts; none for zero. VS Code
 * shows the tooltip after the container's title ("Spool - 3 dead jobs"), so it does not name Spool.
 */
export function deadBadgeText(dead: number): { value: number; tooltip: string } | undefined {
  return dead > 0 ? { value: dead, tooltip: `${dead} dead job${dead === 1 ? '' : 's'}` } : undefined;
}
