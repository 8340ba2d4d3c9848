/**
 * What the user is told about jobs: a note naming the job after each enqueue from this window
 * (with Show Output), a warning when jobs enqueued here end dead (merged when several die within
 * a few seconds, see deathBatch.ts), and, with `spool.notifications: all`, a note when one
 * completes. Only ids this window enqueued are tracked, so other windows' jobs never pop up here.
 */
import * as vscode from 'vscode';
import type { Job } from '../shared/protocol/types';
import type { DaemonConnection } from './daemon/connection';
import { errorMessage } from '../shared/protocol/errors';
import { DeathBatch, REAL_CLOCK, RETRY, RETRY_ALL, SHOW, SHOW_OUTPUT, deathNotice, type Clock, type Death } from './deathBatch';
import { readSettings } from './settings';
import { payloadSummary, shortId } from './views/format';

/** Forget ids after this many, oldest first, so a long session does not grow without bound. */
const MAX_TRACKED = 10_000;

/** A bounded set of ids, the oldest forgotten first. */
class IdSet {
  private readonly ids = new Set<string>();

  add(id: string): void {
    this.ids.delete(id);
    if (this.ids.size >= MAX_TRACKED) {
      const oldest = this.ids.values().next();
      if (!oldest.done) this.ids.delete(oldest.value);
    }
    this.ids.add(id);
  }

  has(id: string): boolean {
    return this.ids.has(id);
  }

  delete(id: string): void {
    this.ids.delete(id);
  }

  /** The ids that end with `suffix`, newest first. */
  endingWith(suffix: string): string[] {
    return [...this.ids].filter((id) => id.endsWith(suffix)).reverse();
  }
}

export class EnqueuedJobs implements vscode.Disposable {
  private readonly ids = new IdSet();
  /** Every job id this window has heard of (its events and its own enqueues), for short ids. */
  private readonly seen = new IdSet();
  private readonly deaths: DeathBatch;
  private readonly subscription: vscode.Disposable;

  constructor(
    private readonly connection: DaemonConnection,
    clock: Clock = REAL_CLOCK,
  ) {
    this.deaths = new DeathBatch((batch) => void this.reportDeaths(batch), clock);
    this.subscription = connection.onJobChanged((event) => {
      this.seen.add(event.id);
      if (!this.ids.has(event.id)) return;
      const level = readSettings().notifications;
      if (event.state === 'dead') {
        this.ids.delete(event.id);
        if (level !== 'none') this.deaths.add({ id: event.id, queue: event.queue, kind: event.kind, attempt: event.attempt });
      } else if (event.state === 'completed' || event.state === 'cancelled' || event.deleted) {
        this.ids.delete(event.id);
        if (level === 'all' && event.state === 'completed') void vscode.window.showInformationMessage(`Spool: ${event.kind} job ${shortId(event.id)} in ${event.queue} completed.`);
      }
    });
  }

  track(id: string): void {
    this.ids.add(id);
    this.seen.add(id);
  }

  has(id: string): boolean {
    return this.ids.has(id);
  }

  /**
   * The full ids this window has heard of that end with `suffix` (the 8 characters the views
   * show), newest first.
   */
  idsEndingWith(suffix: string): string[] {
    return this.seen.endingWith(suffix);
  }

  private async reportDeaths(batch: Death[]): Promise<void> {
    let firstError: string | null = null;
    const [first] = batch;
    if (first) {
      try {
        firstError = (await this.connection.client().call('jobs.get', { id: first.id })).job.lastError;
      } catch {
        // The job may have been deleted or the daemon gone meanwhile: the notice goes without the error.
        firstError = null;
      }
    }
    const notice = deathNotice(batch, firstError);
    const choice = await vscode.window.showWarningMessage(notice.message, ...notice.actions);
    const ids = batch.map((d) => d.id);
    if (choice === RETRY) void vscode.commands.executeCommand('spool.jobs.retry', ids[0]);
    else if (choice === SHOW_OUTPUT) void vscode.commands.executeCommand('spool.jobs.showOutput', ids[0]);
    else if (choice === RETRY_ALL) void this.retryAll(ids);
    else if (choice === SHOW) void vscode.commands.executeCommand('spool.queues.filter', 'state:dead').then(() => vscode.commands.executeCommand('spool.queues.focus'));
  }

  private async retryAll(ids: string[]): Promise<void> {
    try {
      const result = await this.connection.client().call('jobs.retryMany', { ids });
      for (const id of ids) this.track(id);
      const refused = result.errors.length === 0 ? '' : `; ${result.errors.length} could not be: ${result.errors[0]?.message ?? ''}`;
      void vscode.window.setStatusBarMessage(`Spool: retried ${result.count} job${result.count === 1 ? '' : 's'}${refused}.`, 5000);
    } catch (error) {
      void vscode.window.showErrorMessage(`Spool: could not retry the dead jobs: ${errorMessage(error)}`);
    }
  }

  dispose(): void {
    this.deaths.dispose();
    this.subscription.dispose();
  }
}

/** A job as a note names it: kind, the short id the views show, what it runs, and its queue. */
export function jobPhrase(job: Pick<Job, 'id' | 'kind' | 'queue' | 'payload'>): string {
  const summary = payloadSummary(job.kind, job.payload, 60);
  return `${job.kind} job ${shortId(job.id)}${summary === '' ? '' : ` (${summary})`} in ${job.queue}`;
}

export const OPEN_JOB = 'Open Job';

/**
 * Tells that a job was enqueued (`what` says how: "enqueued", "schedule nightly enqueued"), with
 * Show Output and Open Job. With `spool.notifications: none` it is a status-bar message instead,
 * so the action is still acknowledged without a popup.
 */
export async function announceJob(what: string, job: Pick<Job, 'id' | 'kind' | 'queue' | 'payload'>): Promise<void> {
  const text = `Spool: ${what} ${jobPhrase(job)}.`;
  if (readSettings().notifications === 'none') {
    vscode.window.setStatusBarMessage(text, 5000);
    return;
  }
  const choice = await vscode.window.showInformationMessage(text, SHOW_OUTPUT, OPEN_JOB);
  if (choice === SHOW_OUTPUT) await vscode.commands.executeCommand('spool.jobs.showOutput', job.id);
  else if (choice === OPEN_JOB) await vscode.commands.executeCommand('spool.jobs.openDetails', job.id);
}
