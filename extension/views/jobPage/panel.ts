/**
 * The job pages: one webview panel per job, opened again by revealing it. A page reads the job,
 * its runs and its newest output lines, renders them with render.ts, and follows the job while
 * it is open: `jobs.changed` (through the connection) of the job or of a job it depends on or that
 * depends on it, and an `output` subscription for that job alone re-read it, at most every 200 ms; a deleted job keeps its last content under a banner.
 * The relative times are recomputed every second while the page is visible. Buttons run the
 * extension's own commands with the job's id, so they behave as the tree's menu items do.
 */
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import type { SpoolClient, Subscription } from '../../../shared/client/client';
import { SpoolError } from '../../../shared/protocol/errors';
import { ErrorCode, LIMITS } from '../../../shared/protocol';
import { TERMINAL_STATES, type Job, type JobDependency, type JobRun, type OutputLine } from '../../../shared/protocol/types';
import type { DaemonConnection } from '../../daemon/connection';
import { errorMessage } from '../../../shared/protocol/errors';
import { MESSAGE, PAGE_ACTIONS, readPageMessage, type ToPageMessage } from './messages';
import { jobTitle, PAGE_OUTPUT_LINES, relativeTimes, type JobPageInput } from './model';
import type { WaitingFacts } from '../../../shared/domain/present';
import { renderJobBody, renderJobDocument } from './render';
import { timelineTimes, type JobHistoryEvent } from './timeline';

/** The webview type of a job page. */
export const JOB_PAGE_VIEW_TYPE = 'spool.jobPage';

/** Output events and job changes arrive in bursts: a page re-reads at most this often. */
const REFRESH_MS = 200;

/** What the extension-host tests can read of an open page. */
export interface JobPageState {
  readonly job: Job;
  readonly runs: readonly JobRun[];
  readonly dependencies: readonly JobDependency[];
  readonly outputLines: number;
  readonly deleted: boolean;
  readonly title: string;
  readonly html: string;
}

class JobPage implements vscode.Disposable {
  private job: Job;
  private runs: JobRun[];
  private dependencies: JobDependency[] = [];
  private dependents: JobDependency[] = [];
  private lines: OutputLine[] = [];
  /** The newest line seq read: the `after` of the next read, and how many lines the job wrote. */
  private after = 0;
  private outputDone = false;
  private deleted = false;
  /** Why a due queued job has not started: its queue and the workers (see readWaiting). */
  private waiting: WaitingFacts | null = null;
  /** The job's history (`jobs.history`); null from a daemon without it, undefined until read. */
  private history: JobHistoryEvent[] | null | undefined = undefined;
  private subscription: Subscription | null = null;
  private subscribedOn: SpoolClient | null = null;
  private refreshTimer: NodeJS.Timeout | null = null;
  private refreshing: Promise<void> | null = null;
  private ticker: NodeJS.Timeout | null = null;
  /** The body now, and the body the webview's document was last given (it is restored from that after being hidden). */
  private body = '';
  private bodyInDocument = '';
  private readonly disposables: vscode.Disposable[] = [];
  private disposed = false;
  /** False until the first read is done: the page gets no document before (see JobPages.open). */
  private loaded = false;

  constructor(
    readonly panel: vscode.WebviewPanel,
    job: Job,
    private readonly connection: DaemonConnection,
    private readonly log: vscode.LogOutputChannel,
    private readonly onDispose: () => void,
  ) {
    this.job = job;
    this.runs = [];
    this.disposables.push(
      panel.onDidDispose(() => this.dispose()),
      panel.webview.onDidReceiveMessage((message: unknown) => this.received(message)),
      panel.onDidChangeViewState(() => this.visibilityChanged()),
    );
  }

  get id(): string {
    return this.job.id;
  }

  get state(): JobPageState {
    return { job: this.job, runs: this.runs, dependencies: this.dependencies, outputLines: this.lines.length, deleted: this.deleted, title: this.panel.title, html: this.body };
  }

  /**
   * The first read: the job and its runs, and its output (subscribed first, so no line falls
   * between the two), then the document.
   */
  async load(): Promise<void> {
    const client = this.connection.client();
    const [first] = await Promise.all([client.call('jobs.get', { id: this.id }), this.follow(client)]);
    this.job = first.job;
    this.runs = first.runs;
    this.dependencies = first.dependencies;
    this.dependents = first.dependents;
    await Promise.all([this.readOutput(), this.readWaiting(client), this.readHistory(client)]);
    this.loaded = true;
    this.body = renderJobBody(this.input());
    this.setDocument();
    this.visibilityChanged();
  }

  /** The daemon reported a change to the job (or its deletion). */
  changed(deleted: boolean): void {
    if (deleted) {
      this.deleted = true;
      this.unfollow();
      this.show();
      return;
    }
    this.schedule();
  }

  /** A new or reconnected client: follow the output on it again, and read what changed meanwhile. */
  reconnected(client: SpoolClient): void {
    if (this.deleted) return;
    // The daemon may be another one now, with a history where the last had none.
    if (this.history === null) this.history = undefined;
    if (!this.outputDone && this.subscribedOn !== client) {
      this.follow(client).catch((error: unknown) => this.log.warn(`Following the output of ${this.id} again failed: ${errorMessage(error)}`));
    }
    this.schedule();
  }

  reveal(): void {
    this.panel.reveal();
  }

  /** Whether `id` is one of the jobs the page lists as a dependency or a dependent: its state is shown. */
  lists(id: string): boolean {
    return this.dependencies.some((d) => d.id === id) || this.dependents.some((d) => d.id === id);
  }

  private input(): JobPageInput {
    return {
      job: this.job,
      runs: this.runs,
      output: { lines: this.lines, total: this.after },
      deleted: this.deleted,
      now: Date.now(),
      tokenScope: this.connection.tokenScope,
      dependencies: this.dependencies,
      dependents: this.dependents,
      ...(this.waiting ? { waiting: this.waiting } : {}),
      ...(this.history === undefined ? {} : { history: this.history }),
    };
  }

  /**
   * The job's history, every state change with its cause and who (`jobs.history`): null from a
   * daemon that has no such method; a failure keeps what was read before.
   */
  private async readHistory(client: SpoolClient): Promise<void> {
    if (this.history === null) return;
    try {
      this.history = (await client.call('jobs.history', { id: this.id })).events;
    } catch (error) {
      if (error instanceof SpoolError && error.code === ErrorCode.MethodNotFound) this.history = null;
      else if (!(error instanceof SpoolError && error.code === ErrorCode.JobNotFound)) this.log.warn(`Reading the history of job ${this.id} failed: ${errorMessage(error)}`);
    }
  }

  /**
   * For a due queued job, its queue and the workers: the page says why it has not started (paused,
   * no worker for its kind, concurrency full…) instead of "waiting for a worker". Read again with
   * the job; a failure only leaves the reason shorter.
   */
  private async readWaiting(client: SpoolClient): Promise<void> {
    if (this.job.state !== 'queued' || this.job.runAt > Date.now()) {
      this.waiting = null;
      return;
    }
    try {
      const [{ queue }, { workers }] = await Promise.all([client.call('queues.get', { name: this.job.queue }), client.call('workers.list')]);
      this.waiting = { queue, workers };
    } catch (error) {
      this.log.warn(`Reading why job ${this.id} waits failed: ${errorMessage(error)}`);
      this.waiting = null;
    }
  }

  private schedule(): void {
    if (this.refreshTimer || this.disposed || this.deleted) return;
    this.refreshTimer = setTimeout(() => {
      this.refreshTimer = null;
      void this.refresh();
    }, REFRESH_MS);
  }

  /** Re-reads the job, its runs and the new output lines, one read at a time. */
  async refresh(): Promise<void> {
    if (this.refreshing) {
      await this.refreshing;
      return this.schedule();
    }
    this.refreshing = this.read().finally(() => {
      this.refreshing = null;
    });
    return this.refreshing;
  }

  private async read(): Promise<void> {
    if (this.disposed || this.deleted) return;
    try {
      const { job, runs, dependencies, dependents } = await this.connection.client().call('jobs.get', { id: this.id });
      this.job = job;
      this.runs = runs;
      this.dependencies = dependencies;
      this.dependents = dependents;
      // A retried job writes output again.
      if (this.outputDone && !TERMINAL_STATES.includes(job.state)) {
        this.outputDone = false;
        await this.follow(this.connection.client());
      }
      await Promise.all([this.readOutput(), this.readWaiting(this.connection.client()), this.readHistory(this.connection.client())]);
    } catch (error) {
      if (error instanceof SpoolError && error.code === ErrorCode.JobNotFound) {
        this.deleted = true;
        this.unfollow();
      } else {
        this.log.warn(`Reading job ${this.id} for its page failed: ${errorMessage(error)}`);
        return;
      }
    }
    this.show();
  }

  /**
   * Every line after the last one read, a page at a time, keeping the newest PAGE_OUTPUT_LINES.
   * The first read asks for the newest lines alone (`last`): a job with 10,000 lines opens
   * without reading the 9,800 the page would not show.
   */
  private async readOutput(): Promise<void> {
    if (this.after === 0) {
      const newest = await this.connection.client().call('jobs.output', { id: this.id, last: PAGE_OUTPUT_LINES });
      for (const line of newest.lines) if (line.stream !== 'marker') this.lines.push(line);
      this.after = newest.nextAfter;
      this.outputDone = newest.done;
      if (this.outputDone) this.unfollow();
      return;
    }
    for (;;) {
      const page = await this.connection.client().call('jobs.output', { id: this.id, after: this.after, limit: LIMITS.maxPageSize });
      for (const line of page.lines) if (line.seq > this.after && line.stream !== 'marker') this.lines.push(line);
      if (this.lines.length > PAGE_OUTPUT_LINES) this.lines.splice(0, this.lines.length - PAGE_OUTPUT_LINES);
      this.after = Math.max(this.after, page.nextAfter);
      this.outputDone = page.done;
      if (page.lines.length < LIMITS.maxPageSize) break;
    }
    if (this.outputDone) this.unfollow();
  }

  private async follow(client: SpoolClient): Promise<void> {
    this.unfollow();
    this.subscribedOn = client;
    const subscription = await client.subscribe({ topics: ['output'], jobIds: [this.id] }, { 'jobs.output': () => this.schedule() });
    // The page may have closed, the job ended or the client changed while subscribing.
    if (this.disposed || this.deleted || this.subscribedOn !== client) {
      await subscription.unsubscribe();
      return;
    }
    this.subscription = subscription;
  }

  private unfollow(): void {
    const subscription = this.subscription;
    this.subscription = null;
    this.subscribedOn = null;
    subscription?.unsubscribe().catch((error: unknown) => this.log.warn(`Unsubscribing from the output of ${this.id} failed: ${errorMessage(error)}`));
  }

  /** Draws the current state: a message to a visible page, else the document it is restored from. */
  private show(): void {
    if (this.disposed || !this.loaded) return;
    this.body = renderJobBody(this.input());
    this.panel.title = jobTitle(this.job);
    if (this.panel.visible) this.post({ type: MESSAGE.render, html: this.body });
    else this.setDocument();
  }

  private setDocument(): void {
    this.bodyInDocument = this.body;
    this.panel.webview.html = renderJobDocument(this.input(), randomBytes(16).toString('base64'));
  }

  private visibilityChanged(): void {
    if (this.disposed) return;
    if (this.panel.visible) {
      // A hidden webview is rebuilt from its document when shown again.
      if (this.bodyInDocument !== this.body) this.setDocument();
      this.ticker ??= setInterval(() => {
        const now = Date.now();
        this.post({ type: MESSAGE.times, times: { ...relativeTimes(this.job, now), ...timelineTimes(this.runs, now) } });
      }, 1000);
    } else if (this.ticker) {
      clearInterval(this.ticker);
      this.ticker = null;
    }
  }

  private post(message: ToPageMessage): void {
    void this.panel.webview.postMessage(message);
  }

  private received(message: unknown): void {
    const read = readPageMessage(message);
    if (!read) {
      this.log.warn(`The page of job ${this.id} sent a message that is not one: ${JSON.stringify(message)}`);
      return;
    }
    if (read.type === MESSAGE.openJob) {
      void vscode.commands.executeCommand('spool.jobs.openDetails', read.id);
      return;
    }
    // The command reports its own failures; the page re-reads the job whatever came of it.
    void Promise.resolve(vscode.commands.executeCommand(PAGE_ACTIONS[read.action].command, this.id)).finally(() => this.schedule());
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    if (this.refreshTimer) clearTimeout(this.refreshTimer);
    if (this.ticker) clearInterval(this.ticker);
    this.unfollow();
    for (const d of this.disposables) d.dispose();
    this.panel.dispose();
    this.onDispose();
  }
}

/** Every open job page, by job id. */
export class JobPages implements vscode.Disposable {
  private readonly pages = new Map<string, JobPage>();
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly connection: DaemonConnection,
    private readonly log: vscode.LogOutputChannel,
    private readonly iconPath: vscode.Uri,
  ) {
    this.disposables.push(
      connection.onJobChanged((event) => {
        this.pages.get(event.id)?.changed(event.deleted === true);
        // A page shows the states of the jobs at either end of its dependencies: it follows them too.
        for (const page of this.pages.values()) if (page.id !== event.id && page.lists(event.id)) page.changed(false);
      }),
      // Changes made while the daemon was away, or by the daemon that replaced it, sent no event.
      connection.onDidConnect((client) => {
        for (const page of this.pages.values()) page.reconnected(client);
      }),
    );
  }

  /** Shows the page of `job`: the open one, revealed, or a new one in the active editor group. */
  async open(job: Job): Promise<void> {
    const open = this.pages.get(job.id);
    if (open) {
      open.reveal();
      return;
    }
    // The panel opens at once, so that the webview starts up while the job is read; the page
    // then gets its document once, when everything is there.
    const panel = vscode.window.createWebviewPanel(JOB_PAGE_VIEW_TYPE, jobTitle(job), vscode.ViewColumn.Active, {
      enableScripts: true,
      enableFindWidget: true,
      // The page loads nothing: no file of the extension or the workspace is reachable from it.
      localResourceRoots: [],
    });
    panel.iconPath = this.iconPath;
    const page = new JobPage(panel, job, this.connection, this.log, () => {
      if (this.pages.get(job.id) === page) this.pages.delete(job.id);
    });
    this.pages.set(job.id, page);
    try {
      await page.load();
    } catch (error) {
      page.dispose();
      throw error;
    }
  }

  /** What an open page shows (for the extension-host tests); undefined when the job has none. */
  page(id: string): JobPageState | undefined {
    return this.pages.get(id)?.state;
  }

  /** The jobs with an open page. */
  get openJobs(): string[] {
    return [...this.pages.keys()];
  }

  dispose(): void {
    for (const page of [...this.pages.values()]) page.dispose();
    for (const d of this.disposables) d.dispose();
  }
}
