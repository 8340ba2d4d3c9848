/**
 * The steps of "Enqueue Job": queue (existing, recent or new) → kind (shell, http, custom) → what
 * the kind needs (a command; a URL, method, headers and body; or a kind and its JSON payload) →
 * optional priority, delay, attempts, backoff and timeout. Each step checks its answer as it is
 * typed, numbers itself `step n of m` and has Back (see ../steps/flow.ts). Escape at any step
 * cancels the whole enqueue.
 */
import * as vscode from 'vscode';
import type { EnqueueParams } from '../../../shared/protocol';
import type { SpoolContext } from '../../context';
import { draftJob, type JobDraft } from '../steps/draft';
import { runSteps, type Step } from '../steps/flow';
import { kindStep, optionsStep, payloadSteps, queueStep, recent, rememberDraft } from '../steps/jobSteps';
import { ENQUEUE_OPTIONS } from '../steps/rules';

const TITLE = 'Spool: Enqueue Job';

/** A flow in progress: its answers, and where to start when it is shown again. */
export interface EnqueueFlow {
  draft: JobDraft;
  steps: Step<JobDraft>[];
}

/** The steps for a new enqueue; a `preset` queue (Enqueue from a queue's menu) skips the queue step. */
export async function enqueueFlow(ctx: SpoolContext, preset: { queue?: string } = {}): Promise<EnqueueFlow> {
  const draft: JobDraft = preset.queue ? { queue: preset.queue } : {};
  const steps: Step<JobDraft>[] = [];
  if (!preset.queue) {
    const { queues } = await ctx.connection.client().call('queues.list');
    steps.push(queueStep(queues, recent(ctx, 'queue')));
  }
  steps.push(kindStep(), ...payloadSteps(ctx), optionsStep(ENQUEUE_OPTIONS, 'enqueue'));
  return { draft, steps };
}

/**
 * Runs the flow's steps (from the last one when `again`, after the daemon refused the answers,
 * which are all still there) and returns the params; undefined when the user cancelled.
 */
export async function askEnqueueParams(ctx: SpoolContext, flow: EnqueueFlow, again = false): Promise<EnqueueParams | undefined> {
  if (!(await runSteps(TITLE, flow.steps, flow.draft, again ? flow.steps.length - 1 : 0))) return undefined;
  const job = draftJob(flow.draft, vscode.workspace.workspaceFolders?.[0]?.uri.fsPath);
  // Every step checked its answer as it was typed; this only fails if a step was skipped.
  if (!job.ok) throw new Error(job.message);
  await rememberDraft(ctx, flow.draft);
  return { queue: flow.draft.queue ?? 'default', kind: job.value.kind, payload: job.value.payload, ...job.value.options };
}
