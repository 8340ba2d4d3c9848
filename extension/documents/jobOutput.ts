/**
 * A job's output as a live document (`spool-output:/<id>.log`). While the document is open it
 * follows the job through an `output` subscription for that job alone, and stays readable after
 * the job ends. Closing the document ends the subscription.
 */
import * as vscode from 'vscode';
import type { Subscription } from '../../shared/client';
import type { OutputLine } from '../../shared/types';
import type { DaemonConnection } from '../daemon/connection';
import { errorMessage } from '../daemon/connection';

export const OUTPUT_SCHEME = 'spool-output';

export function jobOutputUri(id: string): vscode.Uri {
  return vscode.Uri.from({ scheme: OUTPUT_SCHEME, path: `/${id}.log` });
}

function idOf(uri: vscode.Uri): string {
  return uri.path.replace(/^\//, '').replace(/\.log$/, '');
}

interface Followed {
  lines: string[];
  after: number;
  done: boolean;
  subscription: Subscription | null;
  timer: NodeJS.Timeout | null;
}

function formatLine(line: OutputLine): string {
  if (line.stream === 'marker') return `--- ${line.text} ---`;
  return line.stream === 'stderr' ? `[stderr] ${line.text}` : line.text;
}

export class JobOutputProvider implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly changeEmitter = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changeEmitter.event;
  private readonly followed = new Map<string, Followed>();
  private readonly disposables: vscode.Disposable[] = [this.changeEmitter];

  constructor(
    private readonly connection: DaemonConnection,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.disposables.push(
      vscode.workspace.onDidCloseTextDocument((doc) => {
        if (doc.uri.scheme === OUTPUT_SCHEME) this.unfollow(idOf(doc.uri));
      }),
      connection.onJobChanged((event) => {
        if (this.followed.has(event.id)) this.schedule(event.id);
      }),
    );
  }

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const id = idOf(uri);
    let entry = this.followed.get(id);
    if (!entry) {
      entry = { lines: [], after: 0, done: false, subscription: null, timer: null };
      this.followed.set(id, entry);
      await this.follow(id, entry);
    }
    await this.readMore(id, entry);
    const footer = entry.done ? '\n--- the job has finished ---\n' : '';
    return entry.lines.join('\n') + (entry.lines.length > 0 ? '\n' : '') + footer;
  }

  private async follow(id: string, entry: Followed): Promise<void> {
    entry.subscription = await this.connection.client().subscribe({ topics: ['output'], jobIds: [id] }, { 'jobs.output': () => this.schedule(id) });
  }

  /** Everything after the last line read, a page at a time. */
  private async readMore(id: string, entry: Followed): Promise<void> {
    for (;;) {
      const page = await this.connection.client().call('jobs.output', { id, after: entry.after, limit: 1000 });
      entry.lines.push(...page.lines.map(formatLine));
      entry.after = page.nextAfter;
      entry.done = page.done;
      if (page.lines.length < 1000) break;
    }
    if (entry.done && entry.subscription) {
      const subscription = entry.subscription;
      entry.subscription = null;
      await subscription.unsubscribe();
    }
  }

  /** Output arrives in bursts: re-read the document at most every 200 ms. */
  private schedule(id: string): void {
    const entry = this.followed.get(id);
    if (!entry || entry.timer) return;
    entry.timer = setTimeout(() => {
      entry.timer = null;
      this.changeEmitter.fire(jobOutputUri(id));
    }, 200);
  }

  private unfollow(id: string): void {
    const entry = this.followed.get(id);
    if (!entry) return;
    this.followed.delete(id);
    if (entry.timer) clearTimeout(entry.timer);
    entry.subscription?.unsubscribe().catch((error: unknown) => this.log.warn(`Unsubscribing from the output of ${id} failed: ${errorMessage(error)}`));
  }

  dispose(): void {
    for (const id of [...this.followed.keys()]) this.unfollow(id);
    for (const d of this.disposables) d.dispose();
  }
}
