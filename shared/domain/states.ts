/**
 * The job state machine, declared once: for each action on a job, who takes it, from which
 * states, and to which. The engine enforces it (its checks are proven to agree by
 * test/unit/domain-states.test.ts, which drives a real engine through every state and action),
 * the CLI takes its bulk defaults from it, and the extension's context menus
 * (`viewItem =~ /^job\.(dead|cancelled|completed)$/` in package.json) are checked against it by
 * the same test.
 *
 * States: `blocked` waits for the jobs it depends on to end; `queued` waits for its turn (or its `runAt`); `running` is held by one worker under a
 * lease; `retrying` waits out its backoff and is then claimed like a due queued job;
 * `held` is put aside by a user until a user releases it (never claimed);
 * `completed`, `dead` and `cancelled` are terminal until a user retries the job. The long form,
 * who moves a job in and out of each state, is written from this table by `jobStatesDoc`: it
 * is the doc comment of JobState in shared/protocol/types.ts and the JobState description in
 * docs/openrpc.json (both written by `npm run openrpc`, and checked by its test).
 */
import { ErrorCode, type MethodName } from '../protocol';
import { JOB_STATES, type JobState } from '../protocol/types';

/**
 * Who takes an action: a person or script through the client methods (`user`), the worker that
 * holds the job's lease (`worker`), or the daemon on its own (`daemon`: the reaper, start-up
 * recovery).
 */
export type JobActor = 'user' | 'worker' | 'daemon';

/** Where an action leaves a job: a state, or gone. */
export type JobOutcome = JobState | 'deleted';

/** One row of the table. */
export interface JobTransition {
  readonly by: JobActor;
  /** The protocol methods that take this action: names of the method table, so a misspelt one does not compile. */
  readonly methods: readonly MethodName[];
  /**
   * The states in which the action applies, each with the states it may lead to (which one
   * depends on the job: attempts left, a cancel requested, the failure being permanent). In any
   * other state the action is refused with `refusal`.
   */
  readonly from: Readonly<Partial<Record<JobState, readonly JobOutcome[]>>>;
  /**
   * What a job in any other state gets: InvalidState for a user's action; LeaseLost for a
   * worker's, since for a worker the job not running means it no longer holds it; null for
   * the daemon's and for a claim, which pass over jobs they do not apply to.
   */
  readonly refusal: typeof ErrorCode.InvalidState | typeof ErrorCode.LeaseLost | null;
  /** For the CLI's bulk form (`spool retry --queue q`): the states it applies to unless `--state` says. */
  readonly bulkDefault?: readonly JobState[];
  /** For an action no protocol method takes: when it happens, as the state docs say it. */
  readonly when?: string;
}

/** Every action that moves a job (or, for the lease holder's bookkeeping, requires its state). */
export const JOB_TRANSITIONS = {
  /** Take due jobs for a worker; a retrying job is due once its backoff has passed. */
  claim: { by: 'worker', methods: ['jobs.claim'], from: { queued: ['running'], retrying: ['running'] }, refusal: null },
  /** Extend the lease, report progress, save a checkpoint or output: the job stays running. */
  heartbeat: { by: 'worker', methods: ['jobs.heartbeat', 'jobs.progress', 'jobs.checkpoint', 'jobs.log'], from: { running: ['running'] }, refusal: ErrorCode.LeaseLost },
  /** The attempt succeeded (even if a cancel was requested meanwhile: the work is done). */
  complete: { by: 'worker', methods: ['jobs.complete'], from: { running: ['completed'] }, refusal: ErrorCode.LeaseLost },
  /** The attempt failed: retrying while attempts are left, dead when none are or it is permanent, cancelled if a cancel was requested. */
  fail: { by: 'worker', methods: ['jobs.fail'], from: { running: ['retrying', 'dead', 'cancelled'] }, refusal: ErrorCode.LeaseLost },
  /** The worker stops before the job ends: it runs again at once without using up an attempt, or ends cancelled if that was requested. */
  release: { by: 'worker', methods: ['jobs.release'], from: { running: ['retrying', 'cancelled'] }, refusal: ErrorCode.LeaseLost },
  /**
   * The daemon's own executors (shell, http) stopped the job because a cancel was requested. No
   * protocol method: a remote worker ends a cancelled job with jobs.fail or jobs.release.
   */
  markCancelled: { by: 'worker', methods: [], from: { running: ['cancelled'] }, refusal: ErrorCode.LeaseLost, when: "the daemon's own executors stop it for a requested cancel" },
  /** The lease ran out: handled as a failed attempt. */
  reap: { by: 'daemon', methods: [], from: { running: ['retrying', 'dead', 'cancelled'] }, refusal: null, when: 'its lease runs out' },
  /**
   * The last job a blocked job waits for ends as its condition asks: it is queued. One ends so
   * that a condition can no longer hold: it ends cancelled, and so may its own dependents.
   */
  unblock: { by: 'daemon', methods: [], from: { blocked: ['queued', 'cancelled'], held: ['held', 'cancelled'] }, refusal: null, when: 'the jobs it depends on end' },
  /** Start-up recovery of jobs the daemon's own executors left running: given back like a release. */
  recover: { by: 'daemon', methods: [], from: { running: ['retrying'] }, refusal: null, when: "the daemon starts and finds it left running by its own executors" },
  /**
   * Waiting jobs are cancelled at once; a running one stays running with the cancel requested,
   * and its worker ends it. Bulk default: the waiting ones only, since stopping running work
   * across a whole queue is something to ask for by name (`--state running`).
   */
  cancel: {
    by: 'user',
    methods: ['jobs.cancel', 'jobs.cancelMany'],
    from: { blocked: ['cancelled'], queued: ['cancelled'], retrying: ['cancelled'], held: ['cancelled'], running: ['running'] },
    refusal: ErrorCode.InvalidState,
    bulkDefault: ['blocked', 'queued', 'retrying', 'held'],
  },
  /**
   * A finished job runs again with a fresh attempt budget; its history stays. A job with
   * dependencies has them checked again: blocked while one has not ended, refused when one
   * ended so that its condition cannot hold. Bulk default: the dead ones, what a retry is mostly for.
   */
  retry: {
    by: 'user',
    methods: ['jobs.retry', 'jobs.retryMany'],
    from: { completed: ['queued', 'blocked'], dead: ['queued', 'blocked'], cancelled: ['queued', 'blocked'] },
    refusal: ErrorCode.InvalidState,
    bulkDefault: ['dead'],
  },
  /**
   * Priority, run time, payload (a shell job's command, env and cwd; an HTTP job's request),
   * attempts, timeout, tags and weight of a job that has not started (or waits to retry, or is held).
   */
  update: {
    by: 'user',
    methods: ['jobs.update', 'jobs.updateMany'],
    from: { blocked: ['blocked'], queued: ['queued'], retrying: ['retrying'], held: ['held'] },
    refusal: ErrorCode.InvalidState,
    bulkDefault: ['blocked', 'queued', 'retrying', 'held'],
  },
  /** A delayed job, or one waiting out its backoff, becomes due now; its state stays. */
  runNow: { by: 'user', methods: ['jobs.runNow'], from: { queued: ['queued'], retrying: ['retrying'] }, refusal: ErrorCode.InvalidState },
  /**
   * A user puts a waiting job aside: it is never claimed until released. Its dependencies go on
   * being counted while it is held; the jobs that depend on it stay blocked, since it has not
   * ended. Bulk default: every waiting job the filter names.
   */
  hold: {
    by: 'user',
    methods: ['jobs.hold', 'jobs.holdMany'],
    from: { blocked: ['held'], queued: ['held'], retrying: ['held'] },
    refusal: ErrorCode.InvalidState,
    bulkDefault: ['blocked', 'queued', 'retrying'],
  },
  /**
   * Released, a held job waits again as its dependencies and attempts say: blocked while one of
   * its dependencies has not ended, retrying when it has made attempts, else queued; its run time
   * is the one it had.
   */
  unhold: {
    by: 'user',
    methods: ['jobs.unhold', 'jobs.unholdMany'],
    from: { held: ['queued', 'retrying', 'blocked'] },
    refusal: ErrorCode.InvalidState,
    bulkDefault: ['held'],
  },
  /**
   * Anything not running (cancel that first); a job that unfinished jobs depend on only with
   * `cascade`, which deletes them too. Bulk default: finished jobs only, since deleting
   * waiting work across a whole queue is something to ask for by name.
   */
  delete: {
    by: 'user',
    methods: ['jobs.delete', 'jobs.deleteMany'],
    from: { blocked: ['deleted'], queued: ['deleted'], retrying: ['deleted'], held: ['deleted'], completed: ['deleted'], dead: ['deleted'], cancelled: ['deleted'] },
    refusal: ErrorCode.InvalidState,
    bulkDefault: ['completed', 'cancelled', 'dead'],
  },
} as const satisfies Record<string, JobTransition>;

/** The name of an action in the table. */
export type JobAction = keyof typeof JOB_TRANSITIONS;

/** The actions in the table's order. */
export const JOB_ACTIONS: readonly JobAction[] = Object.keys(JOB_TRANSITIONS).filter(isJobAction);

/** Whether `name` is an action of the table (a command-line or menu word, say). */
export function isJobAction(name: string): name is JobAction {
  return Object.hasOwn(JOB_TRANSITIONS, name);
}

/** The row of `action`, typed as the general shape. */
export function transition(action: JobAction): JobTransition {
  return JOB_TRANSITIONS[action];
}

/** The states `action` applies in, in JOB_STATES order. */
export function statesFor(action: JobAction): JobState[] {
  const from = transition(action).from;
  return JOB_STATES.filter((state) => from[state] !== undefined);
}

/** Whether `action` applies to a job in `state`. */
export function allows(action: JobAction, state: JobState): boolean {
  return transition(action).from[state] !== undefined;
}

/** Where `action` may take a job in `state`; empty when it does not apply there. */
export function outcomes(action: JobAction, state: JobState): readonly JobOutcome[] {
  return transition(action).from[state] ?? [];
}

/** The states a user's bulk action applies to when none are named. */
export function bulkDefaultStates(action: 'cancel' | 'retry' | 'delete' | 'hold' | 'unhold' | 'update'): readonly JobState[] {
  return JOB_TRANSITIONS[action].bulkDefault;
}

/**
 * What the table does not say about a state: how a job is first made, how a queued job is shown,
 * what a retrying job waits for, what becomes of a terminal one.
 */
const STATE_NOTES: Readonly<Record<JobState, string>> = {
  blocked: 'A job is enqueued in this state when it depends on jobs that have not all ended (`dependsOn`); it is never claimed, and is queued (or cancelled) in the transaction that ends the last of them. Retention never deletes a job a blocked job depends on.',
  queued: 'A job is enqueued in this state (`jobs.enqueue`, `jobs.enqueueBatch`, a schedule\'s tick) unless it waits for dependencies. A queued job whose `runAt` lies in the future is shown as *delayed*; it is still `queued`.',
  running: 'A running job is held by one worker under a lease.',
  retrying: 'It waits out its backoff (`runAt`), then is claimed exactly like a due queued job.',
  held: 'A held job is never claimed; schedules whose overlap policy waits for their previous job count it as not finished, and retention never deletes it.',
  completed: 'Terminal: retention cleanup deletes it.',
  dead: 'Terminal: retention cleanup deletes it.',
  cancelled: 'Terminal: retention cleanup deletes it.',
};

/** An action as the state docs name it: its methods, or when it happens when no method takes it. */
function actionWords(action: JobAction): string {
  const row = transition(action);
  if (row.methods.length > 0) return `${action} (${row.methods.map((m) => `\`${m}\``).join(', ')})`;
  return row.when !== undefined ? `${action} (when ${row.when})` : action;
}

/** "a", "a or b", "a, b or c". */
function orList(words: readonly string[]): string {
  return words.length <= 1 ? (words[0] ?? '') : `${words.slice(0, -1).join(', ')} or ${words[words.length - 1]}`;
}

/**
 * The states and who moves a job in and out of each, as a Markdown list written from the table
 * (one line per state, no hard wraps, so that it reads the same in a doc comment and in JSON).
 */
export function jobStatesDoc(): string {
  const lines = ['The states a job can be in, and which actions move a job in and out of each (shared/domain/states.ts, JOB_TRANSITIONS):', ''];
  for (const state of JOB_STATES) {
    const entered: string[] = [];
    const left: string[] = [];
    for (const action of JOB_ACTIONS) {
      const from = transition(action).from;
      const into = JOB_STATES.filter((other) => other !== state && (from[other] ?? []).includes(state));
      if (into.length > 0) entered.push(`${actionWords(action)} from ${orList(into.map((s) => `\`${s}\``))}`);
      const out = from[state];
      if (out === undefined) continue;
      const elsewhere = out.filter((to) => to !== state);
      if (elsewhere.length === 0) left.push(`${actionWords(action)} keeps it \`${state}\``);
      else left.push(`${actionWords(action)} → ${orList(out.map((to) => `\`${to}\``))}`);
    }
    const parts = [entered.length > 0 ? `Entered by ${entered.join('; ')}.` : null, left.length > 0 ? `Actions: ${left.join('; ')}.` : null, STATE_NOTES[state]];
    lines.push(`- \`${state}\`: ${parts.filter((p): p is string => p !== null).join(' ')}`);
  }
  return lines.join('\n');
}
