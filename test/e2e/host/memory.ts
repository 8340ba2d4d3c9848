/**
 * Extension-host memory while 10,000 jobs complete: the Queues view is open (so refreshes run),
 * a worker in this process claims and completes the jobs, and the extension receives every
 * `jobs.changed` and `stats.changed` notification. After a forced garbage collection the heap
 * must be about where it started: notifications are coalesced, nothing accumulates.
 */
import * as assert from 'node:assert/strict';
import * as v8 from 'node:v8';
import * as vm from 'node:vm';
import * as vscode from 'vscode';
import type { SpoolApi } from '../../../extension/context';
import { SpoolClient } from '../../../shared/client/client';
import { connected, spool, waitFor } from './api';
import { configString, hostSuite } from './framework';

function collect(): () => void {
  // The extension host runs without --expose-gc; this turns it on for this test's measurement.
  v8.setFlagsFromString('--expose-gc');
  const gc: unknown = vm.runInNewContext('gc');
  if (typeof gc !== 'function') throw new Error('could not reach the garbage collector');
  return () => {
    gc();
    gc();
  };
}

/** The heap after the views' debounced refreshes have run and a full collection. */
async function settledHeap(api: SpoolApi, gc: () => void): Promise<number> {
  const { queues, schedules, workers } = api.context;
  await waitFor('the views to finish their pending refreshes', () => ![queues, schedules, workers].some((view) => view.refresher.scheduled), 10_000);
  gc();
  return process.memoryUsage().heapUsed;
}

const JOBS = 10_000;
const WORKER = 'memory-test-worker';

export const run = hostSuite({
  'a hidden Queues view is not refreshed; it refreshes once when shown again': async (config) => {
    const api = await spool();
    await connected(api);
    await vscode.commands.executeCommand('workbench.view.explorer');
    await waitFor('the Queues view to be hidden', () => !api.context.queuesView.visible);
    const client = await SpoolClient.connect({ socketPath: configString(config, 'socketPath') });
    try {
      let refreshes = 0;
      const counting = api.context.queues.onDidChangeTreeData(() => refreshes++);
      let events = 0;
      const counter = api.context.connection.onJobChanged(() => events++);
      await client.call('jobs.enqueueBatch', { jobs: Array.from({ length: 100 }, (_, n) => ({ queue: 'hidden', kind: 'noop', payload: { n } })) });
      await waitFor('the 100 job events', () => events >= 100, 10_000);
      // The view heard of the changes (it is marked stale) but, hidden, scheduled no refresh.
      const { refresher } = api.context.queues;
      await waitFor('the hidden Queues view to be marked stale', () => refresher.pending, 10_000);
      assert.equal(refresher.scheduled, false, 'no refresh scheduled while hidden');
      assert.equal(refreshes, 0, 'no refresh while hidden');
      await vscode.commands.executeCommand('spool.queues.focus');
      await waitFor('one refresh once visible', () => refreshes >= 1, 10_000);
      counting.dispose();
      counter.dispose();
      assert.equal(refreshes, 1);
    } finally {
      client.close();
    }
  },

  'extension-host memory stays flat while 10,000 jobs complete': async (config) => {
    const api = await spool();
    await connected(api);
    await vscode.commands.executeCommand('spool.queues.focus');
    await waitFor('the Queues view to be visible', () => api.context.queuesView.visible);
    const client = await SpoolClient.connect({ socketPath: configString(config, 'socketPath'), requestTimeoutMs: 120_000 });
    try {
      await client.call('workers.register', { workerId: WORKER, queues: ['flood'], kinds: ['noop'] });
      const gc = collect();
      const before = await settledHeap(api, gc);
      let refreshes = 0;
      const counting = api.context.queues.onDidChangeTreeData(() => refreshes++);
      let done = 0;
      let events = 0;
      const counter = api.context.connection.onJobChanged(() => events++);
      while (done < JOBS) {
        const { jobs } = await client.call('jobs.claim', { workerId: WORKER, queues: ['flood'], kinds: ['noop'], max: 1000 });
        assert.ok(jobs.length > 0, `jobs left to claim after ${done}`);
        await Promise.all(jobs.map((job) => client.call('jobs.complete', { id: job.id, workerId: WORKER })));
        done += jobs.length;
      }
      await waitFor('the status bar to show the flood queue drained', () => api.context.connection.stats?.queues.find((q) => q.name === 'flood')?.counts.completed === JOBS, 60_000);
      const after = await settledHeap(api, gc);
      counting.dispose();
      counter.dispose();
      const grownMb = (after - before) / 1024 / 1024;
      console.log(`heap before ${(before / 1048576).toFixed(1)} MB, after ${(after / 1048576).toFixed(1)} MB; ${events} job events, ${refreshes} tree refreshes`);
      assert.ok(events >= JOBS, `the extension saw the job events (${events})`);
      assert.ok(refreshes < events / 20, `tree refreshes are coalesced (${refreshes} for ${events} events)`);
      assert.ok(grownMb < 15, `the heap grew by ${grownMb.toFixed(1)} MB`);
    } finally {
      client.close();
    }
  },
});
