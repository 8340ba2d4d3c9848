/**
 * "Spool: Dashboard": one webview panel, on every queue or one queue in detail. It reads the
 * queues, the workers, the due jobs (oldest due first, one page across queues) and the history
 * (`stats.history`: the last hour for the health rows, and the range shown), builds the charts
 * and health rows (history.ts, health.ts) and sends them to its script (page/main.ts), which
 * draws them with uPlot. Live: job events are added to the current minute as they arrive, the
 * health rows are read again at most every 2 s while events come, and the history every minute.
 */
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import type { SpoolClient } from '../../../shared/client/client';
import { ErrorCode, LIMITS } from '../../../shared/protocol';
import { SpoolError, errorMessage } from '../../../shared/protocol/errors';
import type { StatsHistoryParams } from '../../../shared/protocol/messages';
import type { Job } from '../../../shared/protocol/types';
import type { DaemonConnection } from '../../daemon/connection';
import { FULL_GROUPS_NAMED, queueHealth, type HealthRow } from './health';
import { addLive, dashboardData, failureRate, fillGaps, rangeParams, stepTimes, type DashboardData, type HistoryResult, type LiveEvent, type RangeName } from './history';
import { DASHBOARD_MESSAGE, readDashboardMessage, type DashboardUpdate } from './messages';
import { dashboardDocument } from './render';
import { upcomingFires, type UpcomingFires } from './schedules';

export const DASHBOARD_VIEW_TYPE = 'spool.dashboard';

/** Job events come in bursts: the page is drawn again at most this often. */
const REDRAW_MS = 1000;
/** The health rows and the history are read again at most this often while events come. */
const REREAD_MS = 2000;
/** The history is read again at least this often (the minutes move on). */
const HISTORY_MS = 60_000;
/** The live events kept between two reads of the history. */
const MAX_EVENTS = 20_000;

/** What the extension-host and code-server tests can read of the open dashboard. */
export interface DashboardState {
  readonly range: RangeName;
  readonly queue: string | null;
  readonly data: DashboardData | null;
  readonly health: readonly HealthRow[];
  readonly schedules: readonly UpcomingFires[];
  /** How many times the page was sent an update. */
  readonly updates: number;
}

/** `stats.history` through a client, or null when the daemon has no such method (one from before it). */
export async function readHistory(client: SpoolClient, params: StatsHistoryParams): Promise<HistoryResult | null> {
  try {
    return await client.call('stats.history', params);
  } catch (error) {
    if (error instanceof SpoolError && error.code === ErrorCode.MethodNotFound) return null;
    throw error;
  }
}

class Dashboard implements vscode.Disposable {
  range: RangeName = 'hour';
  queue: string | null = null;
  private ready = false;
  private updates = 0;
  private data: DashboardData | null = null;
  private health: HealthRow[] = [];
  private queues: string[] = [];
  private note: string | null = null;
  private schedules: { rows: UpcomingFires[]; now: number } = { rows: [], now: 0 };
  /** Scroll to the schedules' timeline on the next update (opened from the Schedules view). */
  focusSchedules = false;
  /** The range's history as read, and the last hour's (for the health rows), with when. */
  private history: { result: HistoryResult; params: { from: number; to: number }; readAt: number } | null = null;
  private hour: { result: HistoryResult; params: { from: number; to: number }; readAt: number } | null = null;
  private noHistory = false;
  private events: LiveEvent[] = [];
  private redrawTimer: NodeJS.Timeout | null = null;
  private rereadTimer: NodeJS.Timeout | null = null;
  private readonly historyTimer: NodeJS.Timeout;
  private reading: Promise<void> | null = null;
  private again = false;
  private disposed = false;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    readonly panel: vscode.WebviewPanel,
    private readonly connection: DaemonConnection,
    private readonly log: vscode.LogOutputChannel,
    private readonly onDispose: () => void,
  ) {
    this.disposables.push(
      panel.onDidDispose(() => this.dispose()),
      panel.webview.onDidReceiveMessage((message: unknown) => this.received(message)),
      connection.onJobChanged((event) => {
        if (this.events.length >= MAX_EVENTS) this.events.splice(0, this.events.length - MAX_EVENTS + 1);
        this.events.push({ queue: event.queue, state: event.state, at: event.at, ...(event.deleted === undefined ? {} : { deleted: event.deleted }) });
        this.scheduleRedraw();
        this.scheduleReread();
      }),
      connection.onQueueChanged(() => this.scheduleReread()),
      connection.onDidConnect(() => this.scheduleReread()),
    );
    this.historyTimer = setInterval(() => this.reread(), HISTORY_MS);
  }

  get state(): DashboardState {
    return { range: this.range, queue: this.queue, data: this.data, health: this.health, schedules: this.schedules.rows, updates: this.updates };
  }

  /** Reads everything and draws it; one read at a time, another after it when asked meanwhile. */
  async read(): Promise<void> {
    if (this.reading) {
      this.again = true;
      return this.reading;
    }
    this.reading = this.readNow().finally(() => {
      this.reading = null;
      if (this.again && !this.disposed) {
        this.again = false;
        this.reread();
      }
    });
    return this.reading;
  }

  private reread(): void {
    this.read().catch((error: unknown) => this.log.warn(`Reading the dashboard failed: ${errorMessage(error)}`));
  }

  private async readNow(): Promise<void> {
    const client = this.connection.client();
    const now = Date.now();
    const hourParams = rangeParams('hour', now);
    const rangeParamsNow = rangeParams(this.range, now, this.queue ?? undefined);
    const sameAsHour = this.range === 'hour' && this.queue === null;
    // A history that cannot be read leaves the health rows, with the reason above them.
    let historyError: string | null = null;
    const failed = (error: unknown): null => {
      historyError = errorMessage(error);
      return null;
    };
    const [{ queues }, { workers }, stats, due, hour, ranged, { schedules }] = await Promise.all([
      client.call('queues.list'),
      client.call('workers.list'),
      client.call('stats.get'),
      client.call('jobs.list', { states: ['queued'], delayed: false, order: 'runAt', limit: LIMITS.maxPageSize }),
      this.noHistory ? Promise.resolve(null) : readHistory(client, hourParams).catch(failed),
      this.noHistory || sameAsHour ? Promise.resolve(null) : readHistory(client, rangeParamsNow).catch(failed),
      client.call('schedules.list'),
    ]);
    if (this.disposed) return;
    this.noHistory = hour === null && historyError === null;
    this.events = this.events.filter((e) => e.at > now - 120_000);
    this.hour = hour === null ? null : { result: hour, params: hourParams, readAt: now };
    const rangeRead = sameAsHour ? hour : ranged;
    this.history = rangeRead === null ? null : { result: rangeRead, params: rangeParamsNow, readAt: now };
    this.schedules = { rows: upcomingFires(schedules, now), now };
    this.queues = queues.map((q) => q.name).sort();
    if (this.queue !== null && !this.queues.includes(this.queue)) this.queues.push(this.queue);
    this.note = this.noHistory
      ? 'This daemon keeps no history (it is older than the dashboard): only the health of the queues is shown. Restart it with this version of Spool to see charts.'
      : historyError !== null
        ? `The history could not be read: ${historyError}`
        : null;
    // Due jobs of a queue missing from the page across queues (others waited longer): its own oldest.
    const byQueue = new Map<string, Pick<Job, 'kind' | 'runAt'>[]>();
    for (const j of due.jobs) byQueue.set(j.queue, [...(byQueue.get(j.queue) ?? []), j]);
    const missing = due.nextCursor === null ? [] : queues.filter((q) => q.counts.queued - q.delayed > 0 && !byQueue.has(q.name));
    const more = await Promise.all(missing.map((q) => client.call('jobs.list', { queue: q.name, states: ['queued'], delayed: false, order: 'runAt', limit: 100 })));
    for (const [i, page] of more.entries()) byQueue.set(missing[i]?.name ?? '', page.jobs);
    // Groups at their limit, of the grouped queues with a limit per group and jobs waiting.
    const limited = queues.filter((q) => q.grouped && q.groupConcurrency !== null && !q.paused && q.counts.queued + q.counts.retrying > 0);
    const fullGroups = new Map(
      await Promise.all(
        limited.map(async (q) => {
          const page = await client.call('queues.groups', { name: q.name, atLimit: true, limit: FULL_GROUPS_NAMED }).catch(() => null);
          return [q.name, page === null ? undefined : { groups: page.groups, more: page.nextAfter !== null }] as const;
        }),
      ),
    );
    this.health = queues
      .map((q) => {
        const rates = this.hourRates(q.name, now);
        const full = fullGroups.get(q.name);
        return queueHealth({ queue: q, workers, due: byQueue.get(q.name) ?? [], allPaused: stats.allPaused === true, ratePerMinute: rates?.rate ?? null, failureRate: rates?.failures ?? null, now, ...(full ? { fullGroups: full } : {}) });
      })
      .sort((a, b) => a.queue.localeCompare(b.queue));
    this.build();
    this.post();
  }

  /** A queue's jobs ended in the last full minute, and its failure rate over the hour, from the last hour's history with the live events. */
  private hourRates(queue: string, now: number): { rate: number; failures: number | null } | null {
    if (!this.hour) return null;
    const times = stepTimes(this.hour.params.from, this.hour.params.to, 'minute');
    const points = addLive(fillGaps(this.hour.result.points, queue, times), this.events, this.hour.readAt, 'minute');
    const lastFull = points.filter((p) => p.at + 60_000 <= now).at(-1);
    const total = points.reduce((t, p) => ({ completed: t.completed + p.completed, failed: t.failed + p.failed, dead: t.dead + p.dead }), { completed: 0, failed: 0, dead: 0 });
    return { rate: lastFull ? lastFull.completed + lastFull.failed + lastFull.dead : 0, failures: failureRate(total) };
  }

  private build(): void {
    if (!this.history) {
      this.data = null;
      return;
    }
    const { result, params, readAt } = this.history;
    this.data = dashboardData(result, params, this.range, this.queue, this.queues, this.events, readAt);
  }

  private scheduleRedraw(): void {
    if (this.redrawTimer || this.disposed) return;
    this.redrawTimer = setTimeout(() => {
      this.redrawTimer = null;
      this.build();
      this.post();
    }, REDRAW_MS);
  }

  private scheduleReread(): void {
    if (this.rereadTimer || this.disposed) return;
    this.rereadTimer = setTimeout(() => {
      this.rereadTimer = null;
      this.reread();
    }, REREAD_MS);
  }

  private post(): void {
    if (!this.ready || this.disposed) return;
    this.panel.title = this.queue === null ? 'Spool: Dashboard' : `Spool: Dashboard (${this.queue})`;
    const update: DashboardUpdate = { type: DASHBOARD_MESSAGE.update, data: this.data, health: this.health, queues: this.queues, range: this.range, queue: this.queue, note: this.note, schedules: this.schedules, focusSchedules: this.focusSchedules };
    this.focusSchedules = false;
    this.updates += 1;
    void this.panel.webview.postMessage(update);
  }

  /** Shows `queue` (null: every queue) over `range`. */
  async show(range: RangeName, queue: string | null): Promise<void> {
    this.range = range;
    this.queue = queue;
    await this.read();
  }

  private received(message: unknown): void {
    const read = readDashboardMessage(message);
    if (!read) {
      this.log.warn(`The dashboard sent a message that is not one: ${JSON.stringify(message)}`);
      return;
    }
    if (read.type === DASHBOARD_MESSAGE.ready) {
      // A page shown again after being hidden starts its script anew.
      this.ready = true;
      this.post();
      return;
    }
    this.show(read.range, read.queue).catch((error: unknown) => void vscode.window.showErrorMessage(`Spool: reading the dashboard failed: ${errorMessage(error)}`));
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    if (this.redrawTimer) clearTimeout(this.redrawTimer);
    if (this.rereadTimer) clearTimeout(this.rereadTimer);
    clearInterval(this.historyTimer);
    for (const d of this.disposables) d.dispose();
    this.panel.dispose();
    this.onDispose();
  }
}

/** The dashboard panel, if open. */
export class DashboardPanel implements vscode.Disposable {
  private dashboard: Dashboard | null = null;

  constructor(
    private readonly connection: DaemonConnection,
    private readonly log: vscode.LogOutputChannel,
    private readonly extensionUri: vscode.Uri,
  ) {}

  /** Opens the dashboard on `queue` (undefined: every queue), or shows the open one on it; `schedules` scrolls to the schedules' timeline. */
  async open(queue?: string, schedules = false): Promise<void> {
    if (this.dashboard) {
      this.dashboard.focusSchedules = schedules;
      this.dashboard.panel.reveal();
      await this.dashboard.show(this.dashboard.range, queue ?? null);
      return;
    }
    const dist = vscode.Uri.joinPath(this.extensionUri, 'dist');
    const panel = vscode.window.createWebviewPanel(DASHBOARD_VIEW_TYPE, 'Spool: Dashboard', vscode.ViewColumn.Active, {
      enableScripts: true,
      // The page loads its script and uPlot's style sheet and nothing else.
      localResourceRoots: [dist],
      retainContextWhenHidden: false,
    });
    panel.iconPath = vscode.Uri.joinPath(this.extensionUri, 'media', 'spool.svg');
    const dashboard = new Dashboard(panel, this.connection, this.log, () => {
      if (this.dashboard === dashboard) this.dashboard = null;
    });
    this.dashboard = dashboard;
    dashboard.queue = queue ?? null;
    dashboard.focusSchedules = schedules;
    const uri = (file: string): string => panel.webview.asWebviewUri(vscode.Uri.joinPath(dist, file)).toString();
    panel.webview.html = dashboardDocument(uri('dashboardPage.js'), uri('dashboardPage.css'), panel.webview.cspSource, randomBytes(16).toString('base64'));
    try {
      await dashboard.read();
    } catch (error) {
      dashboard.dispose();
      throw error;
    }
  }

  /** What the open dashboard shows (for the tests); undefined when none is open. */
  get state(): DashboardState | undefined {
    return this.dashboard?.state;
  }

  dispose(): void {
    this.dashboard?.dispose();
  }
}
