/**
 * The graph pages of workflow runs: one webview panel per run ("Workflow run: release #1a2b3c4d"),
 * opened again by revealing it. A page reads the run with `workflows.get` and sends it to its
 * script (page/main.ts), which lays it out and draws it. It follows the run while open: a
 * `workflows.changed` of the run, or a `jobs.changed` of one of its jobs, re-reads it, at most
 * every 250 ms (a run of a hundred jobs ending together is one read, not a hundred). A clicked
 * node opens the job's page; the buttons run Retry Failed Part and Cancel Run, offered only to a
 * token that may manage jobs.
 */
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import { SpoolError, errorMessage } from '../../../shared/protocol/errors';
import { ErrorCode } from '../../../shared/protocol';
import type { WorkflowRunDetail } from '../../../shared/protocol/workflows';
import type { DaemonConnection } from '../../daemon/connection';
import { mayManage } from '../../daemon/tokenScope';
import { runPageDocument } from './document';
import { RUN_MESSAGE, readRunPageMessage, type RunPageUpdate } from './messages';
import { runActions, runTitle, type RunActions } from './render';

/** The webview type of a run's graph page. */
export const RUN_PAGE_VIEW_TYPE = 'spool.workflowRun';

/** Events of a busy run come in bursts: a page re-reads the run at most this often. */
const REFRESH_MS = 250;

/** The commands of the page's buttons, given the run's id. */
export const RUN_ACTION_COMMANDS: Record<keyof RunActions, string> = { retry: 'spool.workflows.retry', cancel: 'spool.workflows.cancel' };

/** What the extension-host tests can read of an open page. */
export interface RunPageState {
  readonly run: WorkflowRunDetail | null;
  readonly gone: boolean;
  readonly title: string;
  /** How many times the run was read. */
  readonly reads: number;
}

class RunPage implements vscode.Disposable {
  private run: WorkflowRunDetail | null = null;
  private gone = false;
  /** The script has started and listens: until then an update would be lost. */
  private ready = false;
  private reads = 0;
  private timer: NodeJS.Timeout | null = null;
  private reading: Promise<void> | null = null;
  private again = false;
  private disposed = false;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    readonly panel: vscode.WebviewPanel,
    readonly id: string,
    private readonly connection: DaemonConnection,
    private readonly log: vscode.LogOutputChannel,
    private readonly onDispose: () => void,
  ) {
    this.disposables.push(
      panel.onDidDispose(() => this.dispose()),
      panel.webview.onDidReceiveMessage((message: unknown) => this.received(message)),
    );
  }

  get state(): RunPageState {
    return { run: this.run, gone: this.gone, title: this.panel.title, reads: this.reads };
  }

  /** The job ids of the run, as last read. */
  has(jobId: string): boolean {
    return this.run?.jobs.some((j) => j.id === jobId) ?? false;
  }

  /** The first read; its failure (no such run) closes the page and is the caller's to report. */
  async load(): Promise<void> {
    await this.read();
  }

  reveal(): void {
    this.panel.reveal();
  }

  /** Something of the run changed: read it again soon. */
  changed(): void {
    if (this.disposed || this.gone) return;
    if (this.reading) {
      this.again = true;
      return;
    }
    this.timer ??= setTimeout(() => {
      this.timer = null;
      this.reading = this.read()
        .catch((error: unknown) => this.log.warn(`Reading workflow run ${this.id} for its page failed: ${errorMessage(error)}`))
        .finally(() => {
          this.reading = null;
          if (this.again) {
            this.again = false;
            this.changed();
          }
        });
    }, REFRESH_MS);
  }

  private async read(): Promise<void> {
    try {
      this.run = await this.connection.client().call('workflows.get', { id: this.id });
    } catch (error) {
      if (!(error instanceof SpoolError && error.code === ErrorCode.WorkflowRunNotFound) || this.run === null) throw error;
      this.gone = true;
    }
    this.reads += 1;
    if (this.disposed) return;
    this.panel.title = runTitle(this.run);
    this.post();
  }

  private post(): void {
    if (!this.ready || !this.run) return;
    const update: RunPageUpdate = { type: RUN_MESSAGE.run, run: this.run, now: Date.now(), actions: this.actions(this.run), gone: this.gone };
    void this.panel.webview.postMessage(update);
  }

  /** The buttons: each present when the token may use it, enabled when it applies. */
  private actions(run: WorkflowRunDetail): RunActions {
    return mayManage(this.connection.tokenScope) ? runActions(run) : {};
  }

  private received(message: unknown): void {
    const read = readRunPageMessage(message);
    if (!read) {
      this.log.warn(`The graph page of workflow run ${this.id} sent a message that is not one: ${JSON.stringify(message)}`);
      return;
    }
    if (read.type === RUN_MESSAGE.ready) {
      // A page shown again after being hidden starts its script anew.
      this.ready = true;
      this.post();
    } else if (read.type === RUN_MESSAGE.openJob) {
      void vscode.commands.executeCommand('spool.jobs.openDetails', read.id);
    } else {
      // The command reports its own failures; the page re-reads the run whatever came of it.
      void Promise.resolve(vscode.commands.executeCommand(RUN_ACTION_COMMANDS[read.action], this.id)).finally(() => this.changed());
    }
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    if (this.timer) clearTimeout(this.timer);
    for (const d of this.disposables) d.dispose();
    this.panel.dispose();
    this.onDispose();
  }
}

/** Every open graph page, by run id. */
export class WorkflowRunPages implements vscode.Disposable {
  private readonly pages = new Map<string, RunPage>();
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly connection: DaemonConnection,
    private readonly log: vscode.LogOutputChannel,
    private readonly extensionUri: vscode.Uri,
  ) {
    this.disposables.push(
      connection.onWorkflowChanged((event) => this.pages.get(event.id)?.changed()),
      connection.onJobChanged((event) => {
        if (event.workflowRunId !== undefined) {
          this.pages.get(event.workflowRunId)?.changed();
          return;
        }
        // A daemon that does not name the run in a job's event: the pages that show the job.
        for (const page of this.pages.values()) if (page.has(event.id)) page.changed();
      }),
      // Changes made while the daemon was away sent no event.
      connection.onDidConnect(() => {
        for (const page of this.pages.values()) page.changed();
      }),
    );
  }

  /** Shows the graph of run `id`: the open page, revealed, or a new one in the active editor group. */
  async open(id: string): Promise<void> {
    const open = this.pages.get(id);
    if (open) {
      open.reveal();
      return;
    }
    const dist = vscode.Uri.joinPath(this.extensionUri, 'dist');
    const panel = vscode.window.createWebviewPanel(RUN_PAGE_VIEW_TYPE, 'Workflow run', vscode.ViewColumn.Active, {
      enableScripts: true,
      // The page loads its script and nothing else: only the bundles folder is reachable.
      localResourceRoots: [dist],
    });
    panel.iconPath = vscode.Uri.joinPath(this.extensionUri, 'media', 'spool.svg');
    const page = new RunPage(panel, id, this.connection, this.log, () => {
      if (this.pages.get(id) === page) this.pages.delete(id);
    });
    this.pages.set(id, page);
    const script = panel.webview.asWebviewUri(vscode.Uri.joinPath(dist, 'workflowRunPage.js')).toString();
    panel.webview.html = runPageDocument('Workflow run', script, panel.webview.cspSource, randomBytes(16).toString('base64'));
    try {
      await page.load();
    } catch (error) {
      page.dispose();
      throw error;
    }
  }

  /** What an open page shows (for the extension-host tests); undefined when the run has none. */
  page(id: string): RunPageState | undefined {
    return this.pages.get(id)?.state;
  }

  dispose(): void {
    for (const page of [...this.pages.values()]) page.dispose();
    for (const d of this.disposables) d.dispose();
  }
}
