/**
 * What the dashboard page and the extension say to each other, declared once: the page's script
 * (page/main.ts) and the panel (panel.ts) both import it. What the page sends is read by
 * `readDashboardMessage`, not trusted.
 */
import type { HealthRow } from './health';
import type { UpcomingFires } from './schedules';
import { RANGES, type DashboardData, type RangeName } from './history';

export const DASHBOARD_MESSAGE = {
  /** Extension → page: the charts' data, the health rows and the queues to pick from. */
  update: 'update',
  /** Page → extension: the script runs and waits for data. */
  ready: 'ready',
  /** Page → extension: the range or the queue shown was changed. */
  show: 'show',
} as const;

/** Extension → page. */
export interface DashboardUpdate {
  type: typeof DASHBOARD_MESSAGE.update;
  /** Null when the daemon keeps no history (one from before it): the page says so. */
  data: DashboardData | null;
  health: HealthRow[];
  queues: string[];
  range: RangeName;
  queue: string | null;
  /** Said above the charts when something could not be read. */
  note: string | null;
  /** The enabled schedules' fires in the next 24 h, and the time they were worked out at. */
  schedules: { rows: UpcomingFires[]; now: number };
  /** Scroll to the schedules' timeline (opened from the Schedules view). */
  focusSchedules: boolean;
}

/** Page → extension. */
export type FromDashboard = { type: typeof DASHBOARD_MESSAGE.ready } | { type: typeof DASHBOARD_MESSAGE.show; range: RangeName; queue: string | null };

export function isRange(value: unknown): value is RangeName {
  return typeof value === 'string' && Object.hasOwn(RANGES, value);
}

/** Reads a message from the page; null for anything that is not one. */
export function readDashboardMessage(value: unknown): FromDashboard | null {
  if (typeof value !== 'object' || value === null) return null;
  const type: unknown = Reflect.get(value, 'type');
  if (type === DASHBOARD_MESSAGE.ready) return { type };
  if (type === DASHBOARD_MESSAGE.show) {
    const range: unknown = Reflect.get(value, 'range');
    const queue: unknown = Reflect.get(value, 'queue');
    if (!isRange(range) || !(queue === null || (typeof queue === 'string' && queue.length > 0 && queue.length <= 200))) return null;
    return { type, range, queue };
  }
  return null;
}
