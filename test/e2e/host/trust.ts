/**
 * In an untrusted workspace Spool shows the queues but starts no shell command: enqueueing,
 * retrying or scheduling a shell job is refused with an explanation; other kinds still work.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { SpoolClient } from '../../../shared/client/client';
import type { Job } from '../../../shared/protocol/types';
import { connected, spool, waitFor } from './api';
import { configString, hostSuite } from './framework';

export const run = hostSuite({
  'the workspace is untrusted and Spool still connects and shows queues': async () => {
    assert.equal(vscode.workspace.isTrusted, false);
    const api = await spool();
    await connected(api);
    const queues = await api.context.queues.getChildren();
    assert.ok(queues.some((q) => q.type === 'queue' && q.queue.name === 'reports'));
  },

  'a shell job is refused and nothing is enqueued; a custom job is enqueued': async (config) => {
    const client = await SpoolClient.connect({ socketPath: configString(config, 'socketPath') });
    try {
      const refused = await vscode.commands.executeCommand('spool.jobs.enqueue', { queue: 'untrusted', kind: 'shell', payload: { command: 'touch /tmp/should-not-exist' } });
      assert.equal(refused, undefined);
      assert.deepEqual((await client.call('jobs.list', { queue: 'untrusted' })).jobs, []);
      const schedule = await vscode.commands.executeCommand('spool.schedules.create', { name: 'untrusted', cron: '* * * * *', queue: 'untrusted', job: { kind: 'shell', payload: { command: 'true' } } });
      assert.equal(schedule, undefined);
      assert.deepEqual((await client.call('schedules.list')).schedules.map((s) => s.name), ['nightly']);
      const job = await vscode.commands.executeCommand<Job>('spool.jobs.enqueue', { queue: 'untrusted', kind: 'report', payload: { safe: true } });
      assert.equal(job?.kind, 'report');
    } finally {
      client.close();
    }
  },

  'retrying a dead shell job is refused too': async (config) => {
    const client = await SpoolClient.connect({ socketPath: configString(config, 'socketPath') });
    try {
      const { job } = await client.call('jobs.enqueue', { queue: 'untrusted', kind: 'shell', payload: { command: 'exit 3' }, maxAttempts: 1 });
      await waitFor('the shell job to end dead', async () => (await client.call('jobs.get', { id: job.id })).job.state === 'dead');
      await vscode.commands.executeCommand('spool.jobs.retry', job.id);
      assert.equal((await client.call('jobs.get', { id: job.id })).job.state, 'dead');
    } finally {
      client.close();
    }
  },

  'Retry All Dead Jobs retries the other dead jobs and leaves the shell ones dead': async (config) => {
    const client = await SpoolClient.connect({ socketPath: configString(config, 'socketPath') });
    try {
      const shell = (await client.call('jobs.enqueue', { queue: 'untrusted-all', kind: 'shell', payload: { command: 'exit 3' }, maxAttempts: 1 })).job;
      const report = (await client.call('jobs.enqueue', { queue: 'untrusted-all', kind: 'report', maxAttempts: 1 })).job;
      await client.call('jobs.claim', { workerId: 'trust-worker', queues: ['untrusted-all'], kinds: ['report'] });
      await client.call('jobs.fail', { id: report.id, workerId: 'trust-worker', error: 'failed on purpose' });
      await waitFor('both jobs to end dead', async () => (await client.call('jobs.list', { queue: 'untrusted-all', states: ['dead'] })).jobs.length === 2);
      const result = await vscode.commands.executeCommand<{ count: number }>('spool.jobs.retryAllDead', 'untrusted-all');
      assert.equal(result?.count, 1);
      assert.equal((await client.call('jobs.get', { id: shell.id })).job.state, 'dead', 'the shell job is not run again');
      assert.equal((await client.call('jobs.get', { id: report.id })).job.state, 'queued');
    } finally {
      client.close();
    }
  },

  'enabling a disabled shell schedule is refused': async (config) => {
    const client = await SpoolClient.connect({ socketPath: configString(config, 'socketPath') });
    try {
      await client.call('schedules.create', { name: 'untrusted-shell', cron: '0 3 * * *', queue: 'untrusted', job: { kind: 'shell', payload: { command: 'true' } } });
      await client.call('schedules.disable', { name: 'untrusted-shell' });
      const enabled = await vscode.commands.executeCommand('spool.schedules.enable', 'untrusted-shell');
      assert.equal(enabled, undefined);
      assert.equal((await client.call('schedules.get', { name: 'untrusted-shell' })).schedule.enabled, false);
    } finally {
      client.close();
    }
  },
});
