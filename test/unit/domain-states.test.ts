/**
 * The job state machine is declared once, in shared/domain/states.ts. This file proves that the
 * places which act on it agree with the table:
 *
 * - the extension's context menus: each job command's `when` clause in package.json
 *   (`viewItem =~ /^job\.(dead|cancelled|completed)$/`) names exactly the states of its action;
 * - the engine: a real engine on a real SQLite file is driven into every state, and every
 *   action is taken there; it is allowed, and leads to one of the table's states, or refused
 *   with the table's error and nothing changed, exactly as the table says;
 * - every state an action may lead to is reached by some job, so the table lists no outcome the
 *   engine never produces.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test, type TestContext } from 'node:test';
import type { Engine } from '../../daemon/engine';
import { JOB_ACTIONS, JOB_TRANSITIONS, outcomes, statesFor, transition, type JobAction, type JobOutcome } from '../../shared/domain/states';
import { ErrorCode } from '../../shared/protocol';
import { JOB_STATES, type JobState } from '../../shared/protocol/types';
import { makeEngine, type FakeClock } from './helpers/engine';

const ROOT = path.resolve(__dirname, '..', '..');

// ---------------------------------------------------------------------------------------------
// The extension's menus

/** The job commands whose menu entries depend on the job's state, and the action each takes. */
const MENU_ACTIONS: Readonly<Record<string, JobAction>> = {
  'spool.jobs.retry': 'retry',
  'spool.jobs.cancel': 'cancel',
  'spool.jobs.delete': 'delete',
  'spool.jobs.edit': 'update',
  'spool.jobs.runNow': 'runNow',
  'spool.jobs.hold': 'hold',
  'spool.jobs.release': 'unhold',
};

/**
 * Job commands shown for some states only that are not actions of the state machine: live
 * output is offered inline on running jobs, and on every job from the context menu.
 */
const MENU_VIEWS: Readonly<Record<string, readonly JobState[]>> = {
  'spool.jobs.showOutput': ['running'],
};

interface MenuEntry {
  command: string;
  when: string;
}

/** `value[key]` of a parsed JSON object; undefined for anything else. */
function field(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null ? Reflect.get(value, key) : undefined;
}

function menuEntries(): MenuEntry[] {
  const manifest: unknown = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  const menus = field(field(manifest, 'contributes'), 'menus');
  assert.ok(typeof menus === 'object' && menus !== null, 'package.json has contributes.menus');
  const entries: MenuEntry[] = [];
  for (const list of Object.values(menus)) {
    if (!Array.isArray(list)) continue;
    for (const item of list) {
      const command = field(item, 'command');
      const when = field(item, 'when');
      if (typeof command === 'string' && typeof when === 'string') entries.push({ command, when });
    }
  }
  return entries;
}

/** The job states a `when` clause's `viewItem =~ /^job\.(…)$/` admits; null if it tests no job state. */
function statesIn(when: string): JobState[] | null {
  const m = /viewItem =~ \/\^job\\\.\(([^)]*)\)\$\//.exec(when);
  if (!m || m[1] === undefined) return null;
  if (m[1] === '[a-z]+') return [...JOB_STATES];
  const states = m[1].split('|');
  for (const s of states) assert.ok(JOB_STATES.some((known) => known === s), `"${s}" in ${when} is a job state`);
  return JOB_STATES.filter((state) => states.includes(state));
}

test('each job command in the menus is offered in exactly the states the transitions table allows its action', () => {
  const entries = menuEntries().filter((e) => statesIn(e.when) !== null);
  assert.ok(entries.length > 0, 'package.json has job menu entries');
  for (const action of Object.values(MENU_ACTIONS)) {
    assert.ok(entries.some((e) => MENU_ACTIONS[e.command] === action), `a menu entry takes the ${action} action`);
  }
  for (const entry of entries) {
    const states = statesIn(entry.when) ?? [];
    const action = MENU_ACTIONS[entry.command];
    if (action !== undefined) {
      assert.deepEqual(states, statesFor(action), `${entry.command}: "${entry.when}" must name the states of ${action}`);
    } else if (states.length < JOB_STATES.length) {
      // A command offered for some states only must be listed above, so that a new one is
      // either checked against the table or explained.
      const view = MENU_VIEWS[entry.command];
      assert.ok(view !== undefined, `${entry.command} is offered for ${states.join(', ')} only: map it to an action of shared/domain/states.ts, or to MENU_VIEWS`);
      assert.deepEqual(states, view, entry.command);
    }
  }
});

test('the CLI bulk defaults are states the action applies in', () => {
  for (const action of ['cancel', 'retry', 'delete', 'hold', 'unhold', 'update'] as const) {
    const defaults = JOB_TRANSITIONS[action].bulkDefault;
    assert.ok(defaults.length > 0);
    for (const state of defaults) assert.ok(statesFor(action).includes(state), `${action} defaults to ${state}, where it applies`);
  }
});

// ---------------------------------------------------------------------------------------------
// The engine

const WORKER = 'w';
const BACKOFF_MS = 5000;

interface Job {
  engine: Engine;
  clock: FakeClock;
  id: string;
  /** The job it depends on, in queue `p`, when it has one. */
  dependency?: string;
  /** Whether that job fails when it is run (so that the dependent is cancelled). */
  dependencyFails?: boolean;
}

/**
 * How a job gets into a state; `lastAttempt` makes a failure final, `cancelRequested` asks a
 * running job to stop. `dependencyFails` gives a blocked job a dependency that will fail;
 * `fromBlocked` cancels a job while it is blocked; `dependencyRetried` retries the job's
 * dependency once the job has finished, so that a retry of the job finds it not ended.
 */
interface Setup {
  state: JobState;
  lastAttempt?: boolean;
  cancelRequested?: boolean;
  dependencyFails?: boolean;
  fromBlocked?: boolean;
  dependencyRetried?: boolean;
  /** For a held job: the state it was held from (blocked, with a dependency, unless given). */
  heldFrom?: 'blocked' | 'queued' | 'retrying';
  /** The actions this set-up is meant for, when not every action of its state (a held job without dependencies is not one for unblock). */
  only?: readonly JobAction[];
}

/** A fresh engine with one job in `setup.state`, reached through the engine's own methods. */
async function jobIn(t: TestContext, setup: Setup): Promise<Job> {
  if (setup.state === 'held') {
    const waiting = await jobIn(t, { ...setup, state: setup.heldFrom ?? 'blocked' });
    await waiting.engine.hold(waiting.id);
    assert.equal(await stateOf(waiting), 'held', 'set-up reaches held');
    return waiting;
  }
  const { engine, clock } = makeEngine(t);
  const maxAttempts = setup.lastAttempt || setup.state === 'dead' ? 1 : 3;
  const withDependency = setup.state === 'blocked' || setup.fromBlocked === true || setup.dependencyRetried === true;
  const dependency = withDependency ? (await engine.enqueue({ queue: 'p', kind: 'k', maxAttempts: 1 })).job.id : undefined;
  const { job } = await engine.enqueue({ queue: 'q', kind: 'k', maxAttempts, backoff: { strategy: 'fixed', baseMs: BACKOFF_MS, jitter: 0 }, ...(dependency ? { dependsOn: [dependency] } : {}) });
  const { id } = job;
  const base = { engine, clock, id, ...(dependency ? { dependency } : {}), ...(setup.dependencyFails ? { dependencyFails: true } : {}) };
  if (setup.state === 'blocked' || setup.fromBlocked) {
    if (setup.fromBlocked) await engine.cancel(id);
    assert.equal(await stateOf(base), setup.state, `set-up reaches ${setup.state}`);
    return base;
  }
  if (dependency !== undefined) await endDependency(base, false);
  if (setup.state !== 'queued' && setup.state !== 'cancelled') {
    const claimed = await engine.claim({ workerId: WORKER });
    assert.deepEqual(claimed.map((j) => j.id), [id]);
  }
  if (setup.state === 'retrying' || setup.state === 'dead') await engine.fail({ id, workerId: WORKER, error: 'boom' });
  if (setup.state === 'completed') await engine.complete({ id, workerId: WORKER });
  if (setup.state === 'cancelled' || setup.cancelRequested) await engine.cancel(id);
  if (setup.dependencyRetried && dependency !== undefined) await engine.retry(dependency);
  assert.equal(await stateOf(base), setup.state, `set-up reaches ${setup.state}`);
  return base;
}

/** Runs the job's dependency (queued in queue `p`) to its end: completed, or dead when `fails`. */
async function endDependency(job: Job, fails: boolean): Promise<boolean> {
  if (job.dependency === undefined) return false;
  const claimed = await job.engine.claim({ workerId: WORKER, queues: ['p'] });
  if (!claimed.some((j) => j.id === job.dependency)) return false;
  const w = { id: job.dependency, workerId: WORKER };
  if (fails) await job.engine.fail({ ...w, error: 'boom', permanent: true });
  else await job.engine.complete(w);
  return true;
}

async function stateOf(job: Job): Promise<JobOutcome> {
  try {
    return (await job.engine.getJob(job.id)).job.state;
  } catch (error) {
    if (error instanceof Error && 'code' in error && error.code === ErrorCode.JobNotFound) return 'deleted';
    throw error;
  }
}

/**
 * Takes `action` on the job through the engine. Returns whether it applied: for the actions
 * that refuse (a user's, a worker's), whether it did not throw; for those that pass over a job
 * they do not apply to (a claim, the reaper, start-up recovery), whether the job was taken.
 * A thrown error is returned for its code to be checked.
 */
async function act(action: JobAction, job: Job): Promise<{ applied: boolean; error?: { code: number; message: string } }> {
  const { engine, clock, id } = job;
  const w = { id, workerId: WORKER };
  try {
    switch (action) {
      case 'claim':
        clock.advance(BACKOFF_MS); // a retrying job is claimable once its backoff has passed
        return { applied: (await engine.claim({ workerId: 'other' })).some((j) => j.id === id) };
      case 'heartbeat':
        await engine.heartbeat(w);
        await engine.progress({ ...w, percent: 50 });
        await engine.checkpoint({ ...w, checkpoint: { step: 2 } });
        await engine.log({ ...w, lines: ['a line'] });
        break;
      case 'complete':
        await engine.complete(w);
        break;
      case 'fail':
        await engine.fail({ ...w, error: 'boom' });
        break;
      case 'release':
        await engine.release(w);
        break;
      case 'markCancelled':
        await engine.markCancelled(id, WORKER);
        break;
      case 'reap': {
        const { job: current } = await engine.getJob(id);
        clock.advance(current.timeoutMs + 1);
        return { applied: (await engine.reapExpiredLeases()) > 0 };
      }
      case 'recover':
        return { applied: (await engine.recoverInterrupted([WORKER])) > 0 };
      case 'unblock': {
        const before = (await engine.getJob(id)).job;
        await endDependency(job, job.dependencyFails === true);
        const after = await stateOf(job);
        // A held job stays held as its dependencies end: what changes is how many it waits for.
        const counted = after === 'held' && (await engine.getJob(id)).job.waitingFor < before.waitingFor;
        return { applied: after !== before.state || counted };
      }
      case 'cancel':
        await engine.cancel(id);
        break;
      case 'retry':
        await engine.retry(id);
        break;
      case 'update':
        await engine.update({ id, priority: 5 });
        break;
      case 'runNow':
        await engine.runNow(id);
        break;
      case 'hold':
        await engine.hold(id);
        break;
      case 'unhold':
        await engine.unhold(id);
        break;
      case 'delete':
        await engine.deleteJob(id);
        break;
    }
    return { applied: true };
  } catch (error) {
    if (error instanceof Error && 'code' in error && typeof error.code === 'number') return { applied: false, error: { code: error.code, message: error.message } };
    throw error;
  }
}

for (const action of JOB_ACTIONS) {
  test(`the engine takes "${action}" exactly from the states the transitions table gives, to the states it gives`, async (t) => {
    const row = transition(action);
    for (const state of JOB_STATES) {
      await t.test(`from ${state}`, async (t) => {
        const job = await jobIn(t, { state });
        const result = await act(action, job);
        const after = await stateOf(job);
        if (row.from[state] !== undefined) {
          assert.equal(result.applied, true, `${action} applies to a ${state} job${result.error ? `, but: ${result.error.message}` : ''}`);
          assert.ok(outcomes(action, state).includes(after), `${action} from ${state} led to ${after}; the table says ${outcomes(action, state).join(' or ')}`);
        } else {
          assert.equal(result.applied, false, `${action} must not apply to a ${state} job`);
          if (row.refusal === null) assert.equal(result.error, undefined, `${action} passes over a ${state} job without an error`);
          else assert.equal(result.error?.code, row.refusal, `${action} on a ${state} job is refused with ${row.refusal}`);
          assert.equal(after, state, `a refused ${action} leaves the job ${state}`);
        }
        assert.equal((await job.engine.verifyCounters()).ok, true, 'the counters still match the jobs');
      });
    }
  });
}

/** Jobs that reach the other outcomes of an action: its last attempt, or a cancel requested. */
const VARIANTS: readonly Setup[] = [
  { state: 'blocked' },
  { state: 'blocked', dependencyFails: true },
  { state: 'running' },
  { state: 'running', lastAttempt: true },
  { state: 'running', cancelRequested: true },
  { state: 'queued' },
  { state: 'retrying' },
  { state: 'completed' },
  { state: 'completed', dependencyRetried: true },
  { state: 'dead' },
  { state: 'dead', dependencyRetried: true },
  { state: 'cancelled' },
  { state: 'cancelled', fromBlocked: true },
  { state: 'held' },
  { state: 'held', dependencyFails: true },
  { state: 'held', heldFrom: 'queued', only: ['unhold'] },
  { state: 'held', heldFrom: 'retrying', only: ['unhold'] },
];

test('every outcome the transitions table lists is one the engine reaches', async (t) => {
  for (const action of JOB_ACTIONS) {
    for (const state of statesFor(action)) {
      const reached = new Set<JobOutcome>();
      for (const setup of VARIANTS.filter((v) => v.state === state && (v.only === undefined || v.only.includes(action)))) {
        await t.test(`${action} from ${JSON.stringify(setup)}`, async (t) => {
          const job = await jobIn(t, setup);
          assert.equal((await act(action, job)).applied, true);
          reached.add(await stateOf(job));
        });
      }
      assert.deepEqual([...reached].sort(), [...outcomes(action, state)].sort(), `${action} from ${state}`);
    }
  }
});
