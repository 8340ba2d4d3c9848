/**
 * What every command and view shares for the life of the extension: the connection, the log,
 * the tree providers and their views, the documents, the job and run pages, and the jobs this
 * window enqueued.
 */
import type * as vscode from 'vscode';
import type { DaemonConnection } from './daemon/connection';
import type { EditPayloadProvider } from './documents/editPayload';
import type { EnqueuedJobs } from './notifications';
import type { DashboardPanel } from './views/dashboard/panel';
import type { SpoolStatusBar } from './statusBar';
import type { JobPages } from './views/jobPage/panel';
import type { QueuesProvider } from './views/queues/queuesProvider';
import type { QueueTreeNode } from './views/queues/nodes';
import type { ScheduleNode, SchedulesProvider } from './views/schedulesProvider';
import type { WorkerTreeNode, WorkersProvider } from './views/workersProvider';
import type { WorkflowRunPages } from './views/workflowRun/panel';
import type { WorkflowTreeNode, WorkflowsProvider } from './views/workflows/provider';

export interface SpoolContext {
  extension: vscode.ExtensionContext;
  log: vscode.LogOutputChannel;
  connection: DaemonConnection;
  statusBar: SpoolStatusBar;
  queues: QueuesProvider;
  queuesView: vscode.TreeView<QueueTreeNode>;
  schedules: SchedulesProvider;
  schedulesView: vscode.TreeView<ScheduleNode>;
  workers: WorkersProvider;
  workersView: vscode.TreeView<WorkerTreeNode>;
  workflows: WorkflowsProvider;
  workflowsView: vscode.TreeView<WorkflowTreeNode>;
  editor: EditPayloadProvider;
  enqueued: EnqueuedJobs;
  jobPages: JobPages;
  /** The graph pages of workflow runs. */
  runPages: WorkflowRunPages;
  /** The dashboard: charts over time and the queues' health. */
  dashboard: DashboardPanel;
}

/** What `activate` returns: the parts the extension-host tests look at. */
export interface SpoolApi {
  readonly context: SpoolContext;
  /** The status-bar text now. */
  statusBarText(): string;
}
