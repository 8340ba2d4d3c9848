/**
 * The dashboard's timeline of upcoming schedule fires: for each enabled schedule, its fire times
 * in the next 24 hours, from the shared cron code (shared/domain/cron: the schedule's time zone,
 * daylight-saving changes as Debian cron takes them), drawn as ticks over the day. Pure: the
 * caller passes the schedules and the clock.
 */
import { describeCron, nextFireTimes } from '../../../shared/domain/cron';
import type { Schedule } from '../../../shared/protocol/types';
import { escapeHtml } from '../jobPage/render';

export const TIMELINE_HOURS = 24;
/** At most this many fires are drawn per schedule (a schedule every second has 86,400 a day). */
export const MAX_FIRES = 1440;

export interface UpcomingFires {
  name: string;
  /** "at 03:00 every day", and the zone when not UTC. */
  when: string;
  /** Fire times in (now, now + 24 h], oldest first, at most MAX_FIRES. */
  fires: number[];
  /** True when it fires more often than MAX_FIRES a day. */
  more: boolean;
}

/** The enabled schedules' fires in the next 24 hours, soonest first; a schedule whose cron no longer parses is left out. */
export function upcomingFires(schedules: readonly Pick<Schedule, 'name' | 'cron' | 'timezone' | 'enabled'>[], now: number): UpcomingFires[] {
  const end = now + TIMELINE_HOURS * 3_600_000;
  const out: UpcomingFires[] = [];
  for (const s of schedules) {
    if (!s.enabled) continue;
    let times: number[];
    try {
      times = nextFireTimes({ cron: s.cron, timezone: s.timezone }, now, MAX_FIRES + 1);
    } catch {
      continue;
    }
    const within = times.filter((t) => t <= end);
    out.push({ name: s.name, when: `${describeCron(s.cron)}${s.timezone && s.timezone !== 'UTC' ? ` (${s.timezone})` : ''}`, fires: within.slice(0, MAX_FIRES), more: within.length > MAX_FIRES });
  }
  return out.sort((a, b) => (a.fires[0] ?? Infinity) - (b.fires[0] ?? Infinity) || a.name.localeCompare(b.name));
}

function pct(at: number, now: number): number {
  return Math.round(((at - now) / (TIMELINE_HOURS * 3_600_000)) * 10_000) / 100;
}

/** The timeline as HTML: a row per schedule, a tick per fire (its local time in the tick's title), hour marks every 6 hours. */
export function renderScheduleTimeline(rows: readonly UpcomingFires[], now: number, localTime: (at: number) => string): string {
  if (rows.length === 0) return '<section id="schedules"><h2>Upcoming schedule fires (next 24 h)</h2><p class="muted">No enabled schedule.</p></section>';
  const marks = [6, 12, 18].map((h) => `<line class="mark" x1="${(h / TIMELINE_HOURS) * 100}%" x2="${(h / TIMELINE_HOURS) * 100}%" y1="0" y2="18"></line>`).join('');
  const body = rows
    .map((r) => {
      const ticks = r.fires.map((t) => `<rect class="fire" x="${pct(t, now)}%" y="3" width="2" height="12"><title>${escapeHtml(localTime(t))}</title></rect>`).join('');
      const next = r.fires[0];
      const count = r.fires.length === 0 ? 'no fire in the next 24 h' : `${r.fires.length}${r.more ? '+' : ''} fire${r.fires.length === 1 ? '' : 's'}, next ${escapeHtml(localTime(next ?? now))}`;
      return `<div class="sf-row" data-schedule="${escapeHtml(r.name)}" data-fires="${r.fires.length}"><span class="sf-name">${escapeHtml(r.name)} <span class="muted">${escapeHtml(r.when)}</span></span><svg class="sf-bars" width="100%" height="18" role="img" aria-label="${escapeHtml(`${r.name}: ${count}`)}">${marks}${ticks}</svg><span class="muted">${count}</span></div>`;
    })
    .join('');
  return `<section id="schedules"><h2>Upcoming schedule fires (next 24 h)</h2><div class="sf"><span></span><div class="sf-axis muted"><span>now</span><span>+6h</span><span>+12h</span><span>+18h</span><span>+24h</span></div><span></span>${body}</div></section>`;
}

export const SCHEDULES_STYLE = `
.sf { display: grid; grid-template-columns: max-content minmax(240px, 1fr) max-content; gap: 3px 12px; align-items: center; }
.sf-row { display: contents; }
.sf-axis { display: flex; justify-content: space-between; font-size: 11px; }
.sf-bars { display: block; background: var(--vscode-editorWidget-background, transparent); }
.sf-bars .fire { fill: var(--vscode-charts-blue); }
.sf-bars .mark { stroke: var(--vscode-editorWidget-border, var(--vscode-descriptionForeground)); stroke-dasharray: 2 2; }
`;
