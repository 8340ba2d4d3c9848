/**
 * Two documents of a job, opened as JSON:
 *
 * - Edit & Re-enqueue: its queue, kind, payload and options (`spool-edit:/re-enqueue-<id>.json`);
 *   "Enqueue Edited Job" (the button in the editor's title bar) enqueues a new job with the
 *   edited values. The original job is left as it is.
 * - Edit Job: the editable fields of a job that has not started (`spool-edit:/edit-<id>.json`,
 *   shared/domain/jobEdit.ts); "Apply Job Edit" (the title bar button) changes the job itself
 *   with the fields that differ from the job as it was opened.
 *
 * Saving only keeps the text: with auto-save on, a save comes after every few keystrokes, and a
 * half-edited job must never be enqueued or applied. A small file system provider holds the
 * documents' text; it forgets a document's contents when the document closes.
 */
import * as vscode from 'vscode';
import { NAME_PATTERN, type EnqueueParams } from '../../shared/protocol';
import type { Job } from '../../shared/protocol/types';
import type { DaemonConnection } from '../daemon/connection';
import { mayEnqueue } from '../trust';
import type { EnqueuedJobs } from '../notifications';
import { errorMessage, SpoolError } from '../../shared/protocol/errors';
import { ErrorCode } from '../../shared/protocol';
import { editableText, editedChanges } from '../../shared/domain/jobEdit';

export const EDIT_SCHEME = 'spool-edit';

export function editUri(id: string): vscode.Uri {
  return vscode.Uri.from({ scheme: EDIT_SCHEME, path: `/re-enqueue-${id}.json` });
}

/** The Edit Job document of job `id`. */
export function jobEditUri(id: string): vscode.Uri {
  return vscode.Uri.from({ scheme: EDIT_SCHEME, path: `/edit-${id}.json` });
}

/** The editable part of a job. */
export function editableOf(job: Job): EnqueueParams {
  return { queue: job.queue, kind: job.kind, payload: job.payload, priority: job.priority, maxAttempts: job.maxAttempts, tags: job.tags };
}

/** Checks the edited document and turns it into enqueue params, or says what is wrong. */
export function parseEdited(text: string): EnqueueParams {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Error(`The document is not valid JSON (${errorMessage(error)}). Fix it and enqueue again.`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('The document must be a JSON object with "queue", "kind" and "payload".');
  const queue: unknown = Reflect.get(value, 'queue');
  const kind: unknown = Reflect.get(value, 'kind');
  if (typeof queue !== 'string' || !NAME_PATTERN.test(queue)) throw new Error('"queue" must be a queue name (letters, digits, . _ : -).');
  if (typeof kind !== 'string' || !NAME_PATTERN.test(kind)) throw new Error('"kind" must be a job kind such as "shell" or "http".');
  const params: EnqueueParams = { queue, kind, payload: Reflect.get(value, 'payload') };
  const priority: unknown = Reflect.get(value, 'priority');
  const maxAttempts: unknown = Reflect.get(value, 'maxAttempts');
  const tags: unknown = Reflect.get(value, 'tags');
  if (typeof priority === 'number') params.priority = priority;
  if (typeof maxAttempts === 'number') params.maxAttempts = maxAttempts;
  if (Array.isArray(tags) && tags.every((t): t is string => typeof t === 'string')) params.tags = tags;
  return params;
}

export class EditPayloadProvider implements vscode.FileSystemProvider, vscode.Disposable {
  private readonly changeEmitter = new vscode.EventEmitter<vscode.FileChangeEvent[]>();
  readonly onDidChangeFile = this.changeEmitter.event;
  /** The open documents' contents, by path; each holds a job's payload, up to 1 MB. */
  private readonly files = new Map<string, { data: Uint8Array; mtime: number }>();
  /** The job each open Edit Job document was opened from (or last applied to), by path: what an apply compares the text with. */
  private readonly edited = new Map<string, Job>();
  private readonly disposables: vscode.Disposable[] = [this.changeEmitter];

  constructor(
    private readonly connection: DaemonConnection,
    private readonly enqueued: EnqueuedJobs,
  ) {
    this.disposables.push(
      vscode.workspace.onDidCloseTextDocument((doc) => {
        if (doc.uri.scheme !== EDIT_SCHEME) return;
        // A document whose language changes is reported closed and opened again, and stays in
        // textDocuments; only a document that is really gone lets its file go.
        if (vscode.workspace.textDocuments.some((d) => d.uri.toString() === doc.uri.toString())) return;
        this.files.delete(doc.uri.path);
        this.edited.delete(doc.uri.path);
      }),
    );
  }

  /** Put a job's editable fields in a document and return its URI. */
  prepare(job: Job): vscode.Uri {
    const uri = editUri(job.id);
    this.files.set(uri.path, { data: Buffer.from(JSON.stringify(editableOf(job), null, 2) + '\n'), mtime: Date.now() });
    return uri;
  }

  /** Put a waiting job's editable fields in an Edit Job document and return its URI. */
  prepareEdit(job: Job): vscode.Uri {
    const uri = jobEditUri(job.id);
    this.files.set(uri.path, { data: Buffer.from(editableText(job)), mtime: Date.now() });
    this.edited.set(uri.path, job);
    return uri;
  }

  /**
   * Changes the job with the fields of the document's text (saved or not) that differ from the
   * job as it was opened; the job as changed. A job that started meanwhile is refused, saying so.
   */
  async applyEdit(document: vscode.TextDocument): Promise<{ job: Job; changed: number }> {
    const original = document.uri.scheme === EDIT_SCHEME ? this.edited.get(document.uri.path) : undefined;
    if (original === undefined) throw new Error('Apply Job Edit works on a document opened by Edit Job: open one from a job first.');
    let changes: ReturnType<typeof editedChanges>;
    try {
      changes = editedChanges(original, document.getText());
    } catch (error) {
      throw new Error(`The edit was not applied: ${errorMessage(error)}.`);
    }
    const changed = Object.keys(changes).length;
    if (changed === 0) return { job: original, changed };
    try {
      const { job } = await this.connection.client().call('jobs.update', { id: original.id, ...changes });
      this.edited.set(document.uri.path, job);
      return { job, changed };
    } catch (error) {
      if (error instanceof SpoolError && error.code === ErrorCode.InvalidState) {
        const state = typeof error.data['state'] === 'string' ? error.data['state'] : 'no longer waiting';
        throw new Error(`The edit was not applied: job ${original.id} is ${state} now (it ${state === 'running' ? 'started' : 'changed'} meanwhile).`);
      }
      throw error;
    }
  }

  watch(): vscode.Disposable {
    return new vscode.Disposable(() => undefined);
  }

  stat(uri: vscode.Uri): vscode.FileStat {
    const file = this.files.get(uri.path);
    if (!file) throw vscode.FileSystemError.FileNotFound(uri);
    return { type: vscode.FileType.File, ctime: file.mtime, mtime: file.mtime, size: file.data.byteLength };
  }

  readDirectory(): [string, vscode.FileType][] {
    return [...this.files.keys()].map((p) => [p.slice(1), vscode.FileType.File]);
  }

  createDirectory(uri: vscode.Uri): void {
    throw vscode.FileSystemError.NoPermissions(uri);
  }

  readFile(uri: vscode.Uri): Uint8Array {
    const file = this.files.get(uri.path);
    if (!file) throw vscode.FileSystemError.FileNotFound(uri);
    return file.data;
  }

  /** Saving keeps the text and nothing else (see the module comment). */
  writeFile(uri: vscode.Uri, content: Uint8Array): void {
    if (!this.files.has(uri.path)) throw vscode.FileSystemError.FileNotFound(uri);
    this.files.set(uri.path, { data: content, mtime: Date.now() });
    this.changeEmitter.fire([{ type: vscode.FileChangeType.Changed, uri }]);
  }

  /** Enqueues a new job from the document's text as it stands (saved or not); refuses it with the reason. */
  async enqueue(document: vscode.TextDocument): Promise<Job> {
    if (document.uri.scheme !== EDIT_SCHEME) throw new Error('Enqueue Edited Job works on a document opened by Edit & Re-enqueue Job.');
    const params = parseEdited(document.getText());
    if (!mayEnqueue(params.kind)) throw new Error('This workspace is not trusted: Spool does not enqueue shell jobs here.');
    const { job } = await this.connection.client().call('jobs.enqueue', { ...params, context: { origin: 'vscode' } });
    this.enqueued.track(job.id);
    return job;
  }

  delete(uri: vscode.Uri): void {
    this.files.delete(uri.path);
    this.edited.delete(uri.path);
  }

  rename(uri: vscode.Uri): void {
    throw vscode.FileSystemError.NoPermissions(uri);
  }

  dispose(): void {
    this.files.clear();
    this.edited.clear();
    for (const d of this.disposables) d.dispose();
  }
}
