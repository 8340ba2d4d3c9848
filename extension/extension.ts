/**
 * Spool's VS Code extension: wires the daemon connection, the views, the status bar, the
 * documents and the commands together, and connects (starting the daemon when allowed).
 * Everything here lives as long as the extension and is disposed with it.
 */
import * as vscode from 'vscode';
import { registerCommands } from './commands/registry';
import type { SpoolApi, SpoolContext } from './context';
import { DaemonConnection } from './daemon/connection';
import { EditPayloadProvider, EDIT_SCHEME } from './documents/editPayload';
import { JobDetailsProvider, JOB_SCHEME } from './documents/jobDetails';
import { JobOutputProvider, OUTPUT_SCHEME } from './documents/jobOutput';
import { OutputFollower } from './documents/followOutput';
import { startLanguageClient } from './languageClient';
import { EnqueuedJobs } from './notifications';
import { readSettings } from './settings';
import { SpoolStatusBar } from './statusBar';
import { JobPages } from './views/jobPage/panel';
import { showDeadBadge } from './views/deadBadge';
import { QueuesProvider } from './views/queues/queuesProvider';
import { SchedulesProvider } from './views/schedulesProvider';
import { tickWhileVisible } from './views/ticker';
import { WorkersProvider } from './views/workersProvider';
import { WorkflowRunPages } from './views/workflowRun/panel';
import { WorkflowsProvider } from './views/workflows/provider';
import { errorMessage } from '../shared/protocol/errors';

/** What `activate` returns: the API of context.ts, and the output documents' provider, which the extension-host tests look into. */
export type SpoolExports = SpoolApi & { readonly jobOutput: JobOutputProvider };

export function activate(extension: vscode.ExtensionContext): SpoolExports {
  const log = vscode.window.createOutputChannel('Spool', { log: true });
  const connection = new DaemonConnection(extension.extensionPath, log, extension.secrets);
  const enqueued = new EnqueuedJobs(connection);
  const queues = new QueuesProvider(connection, extension.workspaceState);
  const schedules = new SchedulesProvider(connection);
  const workers = new WorkersProvider(connection);
  const workflows = new WorkflowsProvider(connection);
  const ctx: SpoolContext = {
    extension,
    log,
    connection,
    enqueued,
    statusBar: new SpoolStatusBar(connection),
    queues,
    queuesView: vscode.window.createTreeView('spool.queues', { treeDataProvider: queues, canSelectMany: true, showCollapseAll: true }),
    schedules,
    schedulesView: vscode.window.createTreeView('spool.schedules', { treeDataProvider: schedules }),
    workers,
    workersView: vscode.window.createTreeView('spool.workers', { treeDataProvider: workers }),
    workflows,
    workflowsView: vscode.window.createTreeView('spool.workflows', { treeDataProvider: workflows }),
    editor: new EditPayloadProvider(connection, enqueued),
    jobPages: new JobPages(connection, log, vscode.Uri.joinPath(extension.extensionUri, 'media', 'spool.svg')),
    runPages: new WorkflowRunPages(connection, log, extension.extensionUri),
  };
  const jobOutput = new JobOutputProvider(connection, log);
  extension.subscriptions.push(
    log,
    connection,
    enqueued,
    ctx.statusBar,
    queues,
    ctx.queuesView,
    queues.refresher.watch(ctx.queuesView),
    queues.attach(ctx.queuesView),
    tickWhileVisible(ctx.queuesView, () => queues.redraw()),
    showDeadBadge(ctx.queuesView, connection),
    schedules,
    ctx.schedulesView,
    schedules.refresher.watch(ctx.schedulesView),
    tickWhileVisible(ctx.schedulesView, () => schedules.redraw()),
    workers,
    ctx.workersView,
    workers.refresher.watch(ctx.workersView),
    tickWhileVisible(ctx.workersView, () => workers.redraw()),
    workflows,
    ctx.workflowsView,
    workflows.refresher.watch(ctx.workflowsView),
    tickWhileVisible(ctx.workflowsView, () => workflows.redraw()),
    ctx.editor,
    ctx.jobPages,
    ctx.runPages,
    vscode.workspace.registerFileSystemProvider(EDIT_SCHEME, ctx.editor),
    registerProvider(JOB_SCHEME, new JobDetailsProvider(connection)),
    registerProvider(OUTPUT_SCHEME, jobOutput),
    new OutputFollower(),
    ...registerCommands(ctx),
    startLanguageClient(extension, log),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (['spool.socketPath', 'spool.endpoint', 'spool.tlsFingerprint', 'spool.tlsCa'].some((s) => e.affectsConfiguration(s))) {
        showWhichDaemon(ctx.queuesView, connection);
        void connection.connect(readSettings().autoStartDaemon).catch((error: unknown) => log.error(String(error)));
      }
      if (e.affectsConfiguration('spool.pageSize') || e.affectsConfiguration('spool.showEmptyGroups')) queues.refresher.now();
    }),
  );
  showWhichDaemon(ctx.queuesView, connection);
  void vscode.commands.executeCommand('setContext', 'spool.connectionState', connection.state);
  // Connecting must not hold up activation: the views show "connecting" meanwhile. Failures are
  // reported to the user by the connection itself.
  connection.connect(readSettings().autoStartDaemon).catch((error: unknown) => log.error(`Connecting failed: ${errorMessage(error)}`));
  return { context: ctx, statusBarText: () => ctx.statusBar.text, jobOutput };
}

/** The Queues view names a remote daemon it shows (the local one goes without saying). */
function showWhichDaemon(view: vscode.TreeView<unknown>, connection: DaemonConnection): void {
  view.description = connection.endpoint ?? undefined;
}

function registerProvider(scheme: string, provider: vscode.TextDocumentContentProvider & vscode.Disposable): vscode.Disposable {
  return vscode.Disposable.from(provider, vscode.workspace.registerTextDocumentContentProvider(scheme, provider));
}

export function deactivate(): void {
  // Everything is in context.subscriptions; the daemon keeps running for other windows.
}
