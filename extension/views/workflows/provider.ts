/**
 * The Workflows view: the workflows the daemon holds (`workflows.list`) and those the
 * workspace's jobs files declare that it does not hold yet, each with Run, and under each its
 * recent runs with their state and counts; clicking a run opens its graph. It follows
 * `workflows.changed` (a run's state or counts changed: every job event of a run is one), and
 * reads the jobs files again when one is saved. `contextValue` carries what the menus match on:
 * `workflow.daemon` / `workflow.file`, `workflowRun.<state>`.
 */
import * as vscode from 'vscode';
import { parseJobsFile } from '../../../shared/jobsfile';
import { ErrorCode } from '../../../shared/protocol';
import { SpoolError } from '../../../shared/protocol/errors';
import type { DeclaredWorkflow } from '../../../shared/protocol/projects';
import type { WorkflowRun, WorkflowRunState } from '../../../shared/protocol/workflows';
import type { DaemonConnection } from '../../daemon/connection';
import { Refresher } from '../refresher';
import { runDescription, runName, workflowDescription, workflowEntries, type WorkflowEntry } from './model';

/** How many runs a workflow lists; `spool workflows` and the graph have the rest. */
export const RECENT_RUNS = 10;

/** The jobs files a workspace folder may have at its root. */
const JOBS_FILE_NAMES = ['spool.jsonc', 'spool.json'];
const JOBS_FILES = `{${JOBS_FILE_NAMES.join(',')}}`;

export interface WorkflowNode {
  type: 'workflow';
  entry: WorkflowEntry;
}
export interface WorkflowRunNode {
  type: 'workflowRun';
  run: WorkflowRun;
}
export type WorkflowTreeNode = WorkflowNode | WorkflowRunNode;

export function isWorkflowNode(value: unknown): value is WorkflowNode {
  return typeof value === 'object' && value !== null && 'type' in value && value.type === 'workflow' && 'entry' in value;
}
export function isWorkflowRunNode(value: unknown): value is WorkflowRunNode {
  return typeof value === 'object' && value !== null && 'type' in value && value.type === 'workflowRun' && 'run' in value;
}

function runIcon(state: WorkflowRunState): vscode.ThemeIcon {
  switch (state) {
    case 'running':
      return new vscode.ThemeIcon('sync~spin', new vscode.ThemeColor('charts.blue'));
    case 'succeeded':
      return new vscode.ThemeIcon('pass', new vscode.ThemeColor('testing.iconPassed'));
    case 'failed':
      return new vscode.ThemeIcon('error', new vscode.ThemeColor('errorForeground'));
    case 'cancelled':
      return new vscode.ThemeIcon('circle-slash');
  }
}

export function workflowItem(node: WorkflowNode, now = Date.now()): vscode.TreeItem {
  const e = node.entry;
  const item = new vscode.TreeItem(e.name, vscode.TreeItemCollapsibleState.Collapsed);
  item.id = `workflow:${e.source}:${e.name}`;
  item.description = workflowDescription(e, now);
  item.iconPath = new vscode.ThemeIcon(e.source === 'daemon' ? 'type-hierarchy' : 'file-code');
  item.contextValue = `workflow.${e.source}`;
  const tip = new vscode.MarkdownString().appendMarkdown(`**${e.name}**\n\n`);
  if (e.description) tip.appendText(e.description).appendMarkdown('\n\n');
  const params = Object.entries(e.params);
  if (params.length > 0) tip.appendText(`Parameters: ${params.map(([k, p]) => `${k} (${p.type}${p.default !== undefined ? `, default ${p.default}` : ''})`).join(', ')}`).appendMarkdown('\n\n');
  if (e.source === 'file') tip.appendText(`Declared in ${e.file ?? 'spool.jsonc'} and not applied: Run starts it as the file declares it.`);
  else if (e.owner !== null) tip.appendText(`Applied from spool.jsonc of project ${e.owner}.`);
  item.tooltip = tip;
  return item;
}

export function workflowRunItem(node: WorkflowRunNode, now = Date.now()): vscode.TreeItem {
  const r = node.run;
  const item = new vscode.TreeItem(`#${runName(r).split('#')[1] ?? r.id}`, vscode.TreeItemCollapsibleState.None);
  item.id = `workflowRun:${r.id}`;
  item.description = runDescription(r, now);
  item.iconPath = runIcon(r.state);
  item.contextValue = `workflowRun.${r.state}`;
  const params = Object.entries(r.params).map(([k, v]) => `${k}=${v}`).join(' ');
  item.tooltip = new vscode.MarkdownString().appendText(`${runName(r)}: ${r.state}${params ? `\n\nParameters: ${params}` : ''}\n\nStarted by ${r.source}, ${new Date(r.createdAt).toLocaleString()}`);
  item.command = { command: 'spool.workflows.showRun', title: 'Open Workflow Run', arguments: [r.id] };
  return item;
}

export class WorkflowsProvider implements vscode.TreeDataProvider<WorkflowTreeNode>, vscode.Disposable {
  private readonly changeEmitter = new vscode.EventEmitter<WorkflowTreeNode | undefined>();
  readonly onDidChangeTreeData = this.changeEmitter.event;
  readonly refresher = new Refresher(() => this.changeEmitter.fire(undefined));
  private readonly disposables: vscode.Disposable[] = [this.changeEmitter, this.refresher];
  /** The entries last listed, for the Run command's pick. */
  private entries: WorkflowEntry[] = [];

  constructor(private readonly connection: DaemonConnection) {
    const watcher = vscode.workspace.createFileSystemWatcher(`**/${JOBS_FILES}`);
    this.disposables.push(
      ...this.refresher.follow(connection, [connection.onWorkflowChanged]),
      watcher,
      watcher.onDidChange(() => this.refresher.changed()),
      watcher.onDidCreate(() => this.refresher.changed()),
      watcher.onDidDelete(() => this.refresher.changed()),
    );
  }

  /** Redraw from what is loaded, so relative times move on (the runs are read again: they are few). */
  redraw(): void {
    this.changeEmitter.fire(undefined);
  }

  get listed(): readonly WorkflowEntry[] {
    return this.entries;
  }

  getTreeItem(node: WorkflowTreeNode): vscode.TreeItem {
    return node.type === 'workflow' ? workflowItem(node) : workflowRunItem(node);
  }

  async getChildren(node?: WorkflowTreeNode): Promise<WorkflowTreeNode[]> {
    if (this.connection.state !== 'connected') return [];
    if (!node) {
      this.entries = await this.list();
      void vscode.commands.executeCommand('setContext', 'spool.noWorkflows', this.entries.length === 0);
      return this.entries.map((entry) => ({ type: 'workflow', entry }));
    }
    // A file's workflow has runs too, once run: they are the daemon's, by the workflow's name.
    if (node.type === 'workflow') {
      const { runs } = await this.connection.client().call('workflows.runs', { workflow: node.entry.name, limit: RECENT_RUNS });
      return runs.map((run) => ({ type: 'workflowRun', run }));
    }
    return [];
  }

  /** Every workflow to list: the daemon's, and the workspace files' it does not hold. */
  async list(): Promise<WorkflowEntry[]> {
    const held = this.connection
      .client()
      .call('workflows.list')
      .then(
        (r) => r.workflows,
        // A daemon from before workflows holds none; the files' workflows are still listed.
        (error: unknown) => {
          if (error instanceof SpoolError && error.code === ErrorCode.MethodNotFound) return [];
          throw error;
        },
      );
    const [workflows, files] = await Promise.all([held, readWorkspaceWorkflows()]);
    return workflowEntries(workflows, files);
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}

/**
 * The workflows of the jobs files at the roots of the workspace's folders. A file with errors
 * offers none: a workflow read around an error could start without a step.
 */
export async function readWorkspaceWorkflows(): Promise<{ file: string; workflows: DeclaredWorkflow[] }[]> {
  const found: { file: string; workflows: DeclaredWorkflow[] }[] = [];
  // The files at the folders' roots, read by name: searching the workspace would need the
  // editor's file search, which a remote or web editor may lack.
  for (const folder of vscode.workspace.workspaceFolders ?? []) {
    for (const name of JOBS_FILE_NAMES) {
      const uri = vscode.Uri.joinPath(folder.uri, name);
      let text: string;
      try {
        text = new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
      } catch {
        // No such file in this folder.
        continue;
      }
      const parsed = parseJobsFile(text);
      if (parsed.problems.some((p) => p.severity === 'error')) continue;
      found.push({ file: vscode.workspace.asRelativePath(uri), workflows: parsed.workflows });
    }
  }
  return found;
}
