/**
 * Job details as a read-only JSON document (`spool-job:/<id>.json`): the full job record and
 * its run history, re-read when the daemon reports the job changed and after every (re)connect.
 */
import * as vscode from 'vscode';
import type { DaemonConnection } from '../daemon/connection';

export const JOB_SCHEME = 'spool-job';

export function jobDetailsUri(id: string): vscode.Uri {
  return vscode.Uri.from({ scheme: JOB_SCHEME, path: `/${id}.json` });
}

function idOf(uri: vscode.Uri): string {
  return uri.path.replace(/^\//, '').replace(/\.json$/, '');
}

export class JobDetailsProvider implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly changeEmitter = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changeEmitter.event;
  private readonly pending = new Map<string, NodeJS.Timeout>();
  private readonly disposables: vscode.Disposable[] = [this.changeEmitter];

  constructor(private readonly connection: DaemonConnection) {
    this.disposables.push(
      connection.onJobChanged((event) => this.changed(event.id)),
      // Changes made while the daemon was away, or by the daemon that replaced it, sent no event.
      connection.onDidConnect(() => {
        for (const doc of vscode.workspace.textDocuments) if (doc.uri.scheme === JOB_SCHEME) this.changed(idOf(doc.uri));
      }),
    );
  }

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const id = idOf(uri);
    const { job, runs } = await this.connection.client().call('jobs.get', { id });
    return JSON.stringify({ job, runs }, null, 2) + '\n';
  }

  /** Re-read an open document at most every 250 ms, however many changes arrive. */
  private changed(id: string): void {
    const uri = jobDetailsUri(id);
    if (!vscode.workspace.textDocuments.some((d) => d.uri.toString() === uri.toString())) return;
    if (this.pending.has(id)) return;
    this.pending.set(
      id,
      setTimeout(() => {
        this.pending.delete(id);
        this.changeEmitter.fire(uri);
      }, 250),
    );
  }

  dispose(): void {
    for (const t of this.pending.values()) clearTimeout(t);
    for (const d of this.disposables) d.dispose();
  }
}
