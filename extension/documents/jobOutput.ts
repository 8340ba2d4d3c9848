/**
 * A job's output as a live document (`spool-output:/<id>/builds › npm test (output)`: the tab
 * shows the last segment, what the job is). While the document is open it
 * follows the job through an `output` subscription for that job alone, and stays readable after
 * the job ends. Closing the document ends the subscription.
 *
 * The document holds what the daemon keeps of the output: at most `LIMITS.maxOutputLinesPerJob`
 * lines, below a marker line that says how many older lines were dropped, with a line where
 * each new run of the job begins. Once the job has ended, the last line says how: completed,
 * cancelled, or died with its exit code or HTTP status and its error.
 */
import * as vscode from 'vscode';
import type { SpoolClient, Subscription } from '../../shared/client/client';
import { LIMITS } from '../../shared/protocol';
import { runHeading, runKey } from '../../shared/domain/runs';
import type { Job, OutputLine } from '../../shared/protocol/types';
import type { DaemonConnection } from '../daemon/connection';
import { errorMessage } from '../../shared/protocol/errors';
import { endLine, jobTitle } from '../views/jobPage/model';

export const OUTPUT_SCHEME = 'spool-output';

/**
 * The document of a job's output. Its name is what the tab shows; a slash in it (a path in the
 * command, a URL) would start another path segment, so it is written as a division slash.
 */
export function jobOutputUri(job: Pick<Job, 'id' | 'queue' | 'kind' | 'payload'>): vscode.Uri {
  const name = `${jobTitle(job)} (output)`.replace(/\//g, '\u2215');
  return vscode.Uri.from({ scheme: OUTPUT_SCHEME, path: `/${job.id}/${name}` });
}

function idOf(uri: vscode.Uri): string {
  return uri.path.split('/')[1] ?? '';
}

interface Followed {
  id: string;
  uri: vscode.Uri;
  /** The newest lines read, oldest first, formatted; never more than the daemon keeps. */
  lines: { seq: number; key: string | null; heading: string; text: string }[];
  /**
   * Lines 1..droppedThrough are gone, dropped by the daemon (its marker line takes the seq of
   * the newest line it dropped) or here. Line seqs count every line ever written, so this is
   * also how many were dropped.
   */
  droppedThrough: number;
  after: number;
  done: boolean;
  /** How the job ended, once `done`: the document's last line. */
  end: string | null;
  subscription: Subscription | null;
  /** The client the subscription was made on; a new client (after Restart) needs a new one. */
  client: SpoolClient | null;
  timer: NodeJS.Timeout | null;
}

/** Lines asked for per `jobs.output` call. */
const PAGE = 1000;

function formatLine(line: OutputLine): string {
  return line.stream === 'stderr' ? `[stderr] ${line.text}` : line.text;
}

function droppedMarker(count: number): string {
  return `--- [${count} older lines dropped] ---`;
}

export class JobOutputProvider implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly changeEmitter = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changeEmitter.event;
  /** By document URI: a job whose payload was edited while it waited has a second name. */
  private readonly followed = new Map<string, Followed>();
  private readonly disposables: vscode.Disposable[] = [this.changeEmitter];

  constructor(
    private readonly connection: DaemonConnection,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.disposables.push(
      vscode.workspace.onDidCloseTextDocument((doc) => {
        if (doc.uri.scheme === OUTPUT_SCHEME) this.unfollow(doc.uri.toString());
      }),
      connection.onJobChanged((event) => {
        for (const [key, entry] of this.followed) if (entry.id === event.id) this.schedule(key);
      }),
      // Restart Daemon, Start Daemon and a changed socket replace the client, and the
      // subscriptions on the old one are gone; a client that reconnected by itself made them
      // again. Either way, output written meanwhile is read again.
      connection.onDidConnect((client) => this.reconnected(client)),
    );
  }

  /** The jobs whose output is followed now, one per open document (the extension-host tests read it). */
  get followedJobs(): string[] {
    return [...this.followed.values()].map((entry) => entry.id);
  }

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const key = uri.toString();
    let entry = this.followed.get(key);
    if (entry) {
      await this.readMore(entry);
    } else {
      const created: Followed = { id: idOf(uri), uri, lines: [], droppedThrough: 0, after: 0, done: false, end: null, subscription: null, client: null, timer: null };
      entry = created;
      this.followed.set(key, created);
      try {
        // Subscribe before the first read, so that no line falls between the two.
        await this.subscribe(key, created, this.connection.client());
        await this.readMore(created);
      } catch (error) {
        // No document opens (the job was deleted, the daemon went away): follow nothing.
        this.unfollow(key);
        throw error;
      }
    }
    return this.render(entry);
  }

  private render(entry: Followed): string {
    const text = entry.droppedThrough > 0 ? [droppedMarker(entry.droppedThrough)] : [];
    // Between two runs' lines (a retry, or an attempt run again after it was interrupted), the
    // heading `spool logs` prints.
    let current: string | null = null;
    for (const line of entry.lines) {
      if (line.key !== current) {
        if (current !== null) text.push(line.heading);
        current = line.key;
      }
      text.push(line.text);
    }
    const footer = entry.done ? `\n--- ${entry.end ?? 'the job has ended'} ---\n` : '';
    return text.join('\n') + (text.length > 0 ? '\n' : '') + footer;
  }

  private async subscribe(key: string, entry: Followed, client: SpoolClient): Promise<void> {
    this.dropSubscription(entry);
    entry.client = client;
    const subscription = await client.subscribe({ topics: ['output'], jobIds: [entry.id] }, { 'jobs.output': () => this.schedule(key) });
    // The document may have closed, the job ended or the client changed while subscribing.
    if (this.followed.get(key) !== entry || entry.done || entry.client !== client) {
      await subscription.unsubscribe();
      return;
    }
    entry.subscription = subscription;
  }

  private reconnected(client: SpoolClient): void {
    for (const [key, entry] of this.followed) {
      if (!entry.done && entry.client !== client) {
        this.subscribe(key, entry, client).catch((error: unknown) => this.log.warn(`Following the output of ${entry.id} again failed: ${errorMessage(error)}`));
      }
      this.schedule(key);
    }
  }

  /** Everything after the last line read, a page at a time; once the job has ended, how it ended. */
  private async readMore(entry: Followed): Promise<void> {
    const client = this.connection.client();
    for (;;) {
      const page = await client.call('jobs.output', { id: entry.id, after: entry.after, limit: PAGE });
      this.append(entry, page.lines);
      entry.after = Math.max(entry.after, page.nextAfter);
      entry.done = page.done;
      if (page.lines.length < PAGE) break;
    }
    if (entry.done) {
      this.dropSubscription(entry);
      // Read after the last line: the job has ended, so its record says how.
      const { job, runs } = await client.call('jobs.get', { id: entry.id });
      entry.end = endLine(job, runs);
    } else {
      entry.end = null;
    }
  }

  private append(entry: Followed, lines: OutputLine[]): void {
    for (const line of lines) {
      // Two reads can overlap (a change arrives while the document is read); the second skips
      // what the first has taken.
      if (line.seq <= entry.after) continue;
      if (line.stream === 'marker') {
        // Everything up to the marker's seq is gone from the daemon, so every line read earlier is.
        entry.droppedThrough = Math.max(entry.droppedThrough, line.seq);
        entry.lines = entry.lines.filter((l) => l.seq > line.seq);
      } else {
        entry.lines.push({ seq: line.seq, key: runKey(line), heading: runHeading(line), text: formatLine(line) });
      }
    }
    const excess = entry.lines.length - LIMITS.maxOutputLinesPerJob;
    if (excess > 0) {
      const removed = entry.lines.splice(0, excess);
      entry.droppedThrough = removed[removed.length - 1]?.seq ?? entry.droppedThrough;
    }
  }

  /** Output arrives in bursts: re-read the document at most every 200 ms. */
  private schedule(key: string): void {
    const entry = this.followed.get(key);
    if (!entry || entry.timer) return;
    entry.timer = setTimeout(() => {
      entry.timer = null;
      this.changeEmitter.fire(entry.uri);
    }, 200);
  }

  private dropSubscription(entry: Followed): void {
    const subscription = entry.subscription;
    entry.subscription = null;
    entry.client = null;
    subscription?.unsubscribe().catch((error: unknown) => this.log.warn(`Unsubscribing from the output of ${entry.id} failed: ${errorMessage(error)}`));
  }

  private unfollow(key: string): void {
    const entry = this.followed.get(key);
    if (!entry) return;
    this.followed.delete(key);
    if (entry.timer) clearTimeout(entry.timer);
    this.dropSubscription(entry);
  }

  dispose(): void {
    for (const key of [...this.followed.keys()]) this.unfollow(key);
    for (const d of this.disposables) d.dispose();
  }
}
