/**
 * Extension-host tests against a seeded daemon (see support/seed.ts): activation, commands,
 * tree contents, context values, documents and the status bar. Run by test/e2e/extension.test.ts.
 * The tests run in order and some build on what earlier ones did (noted where they do).
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { SpoolClient } from '../../../shared/client/client';
import type { Job } from '../../../shared/protocol/types';
import { children, connected, groupNode, label, queueNode, spool, waitFor } from './api';
import { configString, hostSuite } from './framework';
import { menuFor } from './menus';

let daemon: SpoolClient | undefined;
async function direct(socketPath: string): Promise<SpoolClient> {
  daemon ??= await SpoolClient.connect({ socketPath });
  return daemon;
}

async function jobState(socketPath: string, id: string): Promise<Job['state']> {
  return (await (await direct(socketPath)).call('jobs.get', { id })).job.state;
}

export const run = hostSuite({
  'activation connects to the daemon on the configured socket': async (config) => {
    const api = await spool();
    await connected(api);
    assert.equal(api.context.connection.status?.socketPath, configString(config, 'socketPath'));
    // The extension only speaks to the daemon over the socket: SQLite is never loaded in the editor.
    assert.deepEqual(Object.keys(require.cache).filter((m) => m.includes('better-sqlite3') || m.includes('better_sqlite3')), []);
  },

  'every contributed command is registered': async () => {
    const manifest: unknown = vscode.extensions.getExtension('spool.spool')?.packageJSON;
    const contributed: unknown = Reflect.get(Reflect.get(manifest ?? {}, 'contributes') ?? {}, 'commands');
    assert.ok(Array.isArray(contributed) && contributed.length > 20, 'the manifest lists the commands');
    const ids = contributed.map((c: unknown) => String(Reflect.get(c ?? {}, 'command')));
    const registered = new Set(await vscode.commands.getCommands(true));
    assert.deepEqual(ids.filter((id) => !registered.has(id)), []);
    for (const c of contributed) {
      assert.equal(Reflect.get(c ?? {}, 'category'), 'Spool', `${String(Reflect.get(c ?? {}, 'command'))} has the Spool category`);
      assert.ok(Reflect.get(c ?? {}, 'icon'), `${String(Reflect.get(c ?? {}, 'command'))} has an icon`);
    }
  },

  'the Queues view shows the seeded queue with its counts and state groups': async () => {
    const api = await spool();
    const reports = await queueNode(api, 'reports');
    assert.equal(reports.item.description, '1 running · 3 queued · 1 delayed · 2 dead');
    assert.equal(reports.item.contextValue, 'queue.active.hasDead');
    // The empty groups (Retrying, Cancelled) are hidden.
    const groups = await children(api, reports.node);
    assert.deepEqual(
      groups.map((g) => [label(g.item), g.item.description]),
      [['Running', '1'], ['Queued', '3'], ['Delayed', '1'], ['Dead', '2'], ['Completed', '1']],
    );
    assert.deepEqual(groups.map((g) => g.item.contextValue), ['group.running', 'group.queued', 'group.delayed', 'group.dead', 'group.completed']);
  },

  'spool.showEmptyGroups shows the groups that hold no jobs': async () => {
    const api = await spool();
    await vscode.workspace.getConfiguration('spool').update('showEmptyGroups', true, vscode.ConfigurationTarget.Global);
    try {
      const groups = await children(api, (await queueNode(api, 'reports')).node);
      assert.deepEqual(
        groups.map((g) => [label(g.item), g.item.description, g.item.contextValue]),
        [
          ['Running', '1', 'group.running'],
          ['Queued', '3', 'group.queued'],
          ['Delayed', '1', 'group.delayed'],
          ['Blocked', '0', 'group.blocked.empty'],
          ['Retrying', '0', 'group.retrying.empty'],
          ['Held', '0', 'group.held.empty'],
          ['Dead', '2', 'group.dead'],
          ['Completed', '1', 'group.completed'],
          ['Cancelled', '0', 'group.cancelled.empty'],
        ],
      );
    } finally {
      await vscode.workspace.getConfiguration('spool').update('showEmptyGroups', undefined, vscode.ConfigurationTarget.Global);
    }
  },

  'jobs in a group show kind and payload, attempts, a state icon and a contextValue per state': async () => {
    const api = await spool();
    const dead = await children(api, (await groupNode(api, 'reports', 'Dead')).node);
    assert.equal(dead.length, 2);
    for (const { item } of dead) {
      assert.match(label(item), /^report: \{"month":"2026-0[12]","doomed":true\}$/);
      // Seconds or minutes: the seed may take a while on a busy machine.
      assert.match(String(item.description), /^the report template is missing · \d+[sm] ago/);
      assert.equal(item.contextValue, 'job.dead');
      assert.ok(item.iconPath instanceof vscode.ThemeIcon && item.iconPath.id === 'error');
      assert.ok(item.tooltip instanceof vscode.MarkdownString && item.tooltip.value.includes('the report template is missing'));
    }
    const running = await children(api, (await groupNode(api, 'reports', 'Running')).node);
    assert.equal(running.length, 1);
    assert.equal(label(running[0]!.item), 'sleep 600');
    assert.equal(running[0]!.item.contextValue, 'job.running');
    assert.ok(running[0]!.item.iconPath instanceof vscode.ThemeIcon && running[0]!.item.iconPath.id === 'sync~spin');
  },

  'a due job that no live worker takes says so on its row and on its page': async (config) => {
    const api = await spool();
    const client = await direct(configString(config, 'socketPath'));
    const { job } = await client.call('jobs.enqueue', { queue: 'idle', kind: 'resize', payload: { size: 64 } });
    const row = await waitFor('the job under Queued', async () => (await children(api, (await groupNode(api, 'idle', 'Queued')).node)).find((c) => c.node.type === 'job' && c.node.job.id === job.id));
    assert.match(String(row.item.description), /^queued .* · no worker takes kind resize on queue idle$/);
    await vscode.commands.executeCommand('spool.jobs.openDetails', job.id);
    // "Waiting for a worker." said nothing of why; the page names what holds the job back.
    await waitFor('the page to say why the job waits', () => api.context.jobPages.page(job.id)?.html.includes('Waiting: no worker takes kind resize on queue idle.'));
    await client.call('jobs.delete', { id: job.id });
  },

  'context values decide which menu items a user sees': () => {
    const dead = menuFor('spool.queues', 'job.dead');
    assert.ok(dead.inline.includes('spool.jobs.retry') && dead.context.includes('spool.jobs.retry'));
    assert.ok(!dead.context.includes('spool.jobs.cancel'));
    const running = menuFor('spool.queues', 'job.running');
    assert.ok(running.inline.includes('spool.jobs.cancel') && running.context.includes('spool.jobs.cancel'));
    assert.ok(!running.context.includes('spool.jobs.retry') && !running.context.includes('spool.jobs.delete'));
    assert.ok(menuFor('spool.queues', 'queue.active').inline.includes('spool.queues.pause'));
    assert.ok(menuFor('spool.queues', 'queue.paused').inline.includes('spool.queues.resume'));
    assert.ok(menuFor('spool.queues', 'queue.paused.hasDead').inline.includes('spool.queues.resume'));
    assert.ok(menuFor('spool.queues', 'queue.active.hasDead').context.includes('spool.jobs.retryAllDead'));
    assert.ok(!menuFor('spool.queues', 'queue.active').context.includes('spool.jobs.retryAllDead'), 'no Retry All Dead where nothing is dead');
    assert.ok(menuFor('spool.queues', 'queue.active').context.includes('spool.queues.delete'));
    assert.ok(!menuFor('spool.queues', 'group.dead.empty').context.includes('spool.jobs.retryAllDead'));
    assert.ok(!menuFor('spool.queues', 'queue.paused').context.includes('spool.queues.pause'));
    assert.ok(menuFor('spool.schedules', 'schedule.enabled').context.includes('spool.schedules.disable'));
    assert.ok(menuFor('spool.schedules', 'schedule.disabled').context.includes('spool.schedules.enable'));
  },

  'a large group loads one page, and "Load more…" loads the next': async (config) => {
    const api = await spool();
    await vscode.workspace.getConfiguration('spool').update('pageSize', 10, vscode.ConfigurationTarget.Global);
    try {
      const client = await direct(configString(config, 'socketPath'));
      await client.call('jobs.enqueueBatch', { jobs: Array.from({ length: 25 }, (_, i) => ({ queue: 'paged', kind: 'report', payload: { n: i } })) });
      const group = await groupNode(api, 'paged', 'Queued');
      let page = await children(api, group.node);
      assert.equal(page.length, 11);
      const more = page[10]!;
      assert.equal(label(more.item), 'Load more…');
      assert.equal(more.item.description, '10 of 25');
      await vscode.commands.executeCommand('spool.jobs.loadMore', more.node);
      page = await children(api, group.node);
      assert.equal(page.length, 21);
      assert.deepEqual(page.slice(0, 20).map((p) => label(p.item)), Array.from({ length: 20 }, (_, i) => `report: {"n":${i}}`));
      await vscode.commands.executeCommand('spool.jobs.loadMore', page[20]!.node);
      page = await children(api, group.node);
      assert.equal(page.length, 25, 'the last page has no "Load more…"');
    } finally {
      await vscode.workspace.getConfiguration('spool').update('pageSize', undefined, vscode.ConfigurationTarget.Global);
    }
  },

  'Enqueue Job runs a shell job to completion': async (config) => {
    const job = await vscode.commands.executeCommand<Job>('spool.jobs.enqueue', { queue: 'host', kind: 'shell', payload: { command: 'echo from the extension host' } });
    assert.ok(job && job.id, 'the command returns the job');
    assert.equal(job.context?.origin, 'vscode');
    await waitFor('the job to complete', async () => (await jobState(configString(config, 'socketPath'), job.id)) === 'completed');
  },

  'Show Job Output opens a document that follows the job live': async (config) => {
    const job = await vscode.commands.executeCommand<Job>('spool.jobs.enqueue', {
      queue: 'host',
      kind: 'shell',
      payload: { command: 'echo first; while [ ! -f "$STOP" ]; do sleep 0.1; done; echo second' , env: { STOP: `${configString(config, 'scratch')}/stop-output` } },
    });
    await waitFor('the job to run', async () => (await jobState(configString(config, 'socketPath'), job.id)) === 'running');
    const uri = await vscode.commands.executeCommand<string>('spool.jobs.showOutput', job.id);
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri);
    assert.ok(doc, 'the output document is open');
    await waitFor('the first line', () => doc.getText().includes('first'));
    assert.ok(!doc.getText().includes('second'));
    const fs = await import('node:fs');
    fs.writeFileSync(`${configString(config, 'scratch')}/stop-output`, '');
    await waitFor('the second line and the end marker', () => doc.getText().includes('second') && doc.getText().includes('--- the job completed ---'));
  },

  'Open Job as JSON shows the job and its runs as JSON': async () => {
    const api = await spool();
    const [dead] = await children(api, (await groupNode(api, 'reports', 'Dead')).node);
    assert.ok(dead);
    const uri = await vscode.commands.executeCommand<string>('spool.jobs.openJson', dead.node);
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri);
    assert.ok(doc);
    assert.equal(doc.languageId, 'json');
    const parsed: unknown = JSON.parse(doc.getText());
    const job: unknown = Reflect.get(parsed ?? {}, 'job');
    const runs: unknown = Reflect.get(parsed ?? {}, 'runs');
    assert.equal(Reflect.get(job ?? {}, 'state'), 'dead');
    assert.ok(Array.isArray(runs) && runs.length === 1 && Reflect.get(runs[0] ?? {}, 'error') === 'the report template is missing');
  },

  'an open job details document follows the job as it changes': async (config) => {
    const client = await direct(configString(config, 'socketPath'));
    const { job } = await client.call('jobs.enqueue', { queue: 'details', kind: 'report', payload: { watch: true } });
    const uri = await vscode.commands.executeCommand<string>('spool.jobs.openJson', job.id);
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri);
    assert.ok(doc);
    assert.match(doc.getText(), /"state": "queued"/);
    await client.call('jobs.cancel', { id: job.id });
    await waitFor('the document to show the job cancelled', () => doc.getText().includes('"state": "cancelled"'), 10_000);
  },

  'Retry on a dead job moves it out of Dead': async (config) => {
    const api = await spool();
    const [dead] = await children(api, (await groupNode(api, 'reports', 'Dead')).node);
    assert.ok(dead && dead.node.type === 'job');
    await vscode.commands.executeCommand('spool.jobs.retry', dead.node, [dead.node]);
    assert.equal(await jobState(configString(config, 'socketPath'), dead.node.job.id), 'queued');
    assert.equal((await groupNode(api, 'reports', 'Dead')).item.description, '1');
  },

  'Cancel on a multi-selection cancels every selected job': async (config) => {
    const api = await spool();
    const queued = await children(api, (await groupNode(api, 'paged', 'Queued')).node);
    const picked = queued.slice(0, 3).map((q) => q.node);
    const result = await vscode.commands.executeCommand<{ count: number }>('spool.jobs.cancel', picked[0], picked);
    assert.equal(result?.count, 3);
    for (const node of picked) if (node.type === 'job') assert.equal(await jobState(configString(config, 'socketPath'), node.job.id), 'cancelled');
  },

  'Delete with confirmation given removes the jobs': async (config) => {
    const api = await spool();
    const cancelled = await children(api, (await groupNode(api, 'paged', 'Cancelled')).node);
    assert.equal(cancelled.length, 3);
    const first = cancelled[0]!.node;
    assert.ok(first.type === 'job');
    await vscode.commands.executeCommand('spool.jobs.delete', first.job.id, { confirmed: true });
    await assert.rejects((await direct(configString(config, 'socketPath'))).call('jobs.get', { id: first.job.id }), /No job/);
  },

  'Pause and Resume change the queue and its contextValue': async () => {
    const api = await spool();
    await vscode.commands.executeCommand('spool.queues.pause', 'paged');
    let q = await queueNode(api, 'paged');
    assert.equal(q.item.contextValue, 'queue.paused');
    assert.match(String(q.item.description), /^paused · /);
    await vscode.commands.executeCommand('spool.queues.resume', q.node);
    q = await queueNode(api, 'paged');
    assert.equal(q.item.contextValue, 'queue.active');
  },

  'Configure Queue sets concurrency and a rate limit': async () => {
    const queue = await vscode.commands.executeCommand<{ concurrency: number | null; rateLimit: unknown }>('spool.queues.configure', { name: 'paged', concurrency: 2, rateLimit: { perSecond: 5, burst: 5 } });
    assert.equal(queue?.concurrency, 2);
    assert.deepEqual(queue?.rateLimit, { perSecond: 5, burst: 5 });
  },

  'Filter narrows the jobs listed and shows in the view description': async () => {
    const api = await spool();
    await vscode.commands.executeCommand('spool.queues.filter', 'state:queued "n":2');
    try {
      assert.equal(api.context.queuesView.description, 'filter: state: queued · ""n":2"');
      const groups = await children(api, (await queueNode(api, 'paged')).node);
      assert.deepEqual(groups.map((g) => label(g.item)), ['Queued']);
      const jobs = await children(api, groups[0]!.node);
      assert.ok(jobs.length >= 1 && jobs.every((j) => label(j.item).includes('"n":2')), jobs.map((j) => label(j.item)).join(', '));
    } finally {
      await vscode.commands.executeCommand('spool.queues.clearFilter');
    }
    assert.equal(api.context.queuesView.description, undefined);
  },

  'Retry All Dead Jobs retries the dead jobs of a queue, and follows them as a single retry does': async (config) => {
    const client = await direct(configString(config, 'socketPath'));
    const dead = (await client.call('jobs.list', { queue: 'reports', states: ['dead'] })).jobs.map((j) => j.id);
    const result = await vscode.commands.executeCommand<{ count: number }>('spool.jobs.retryAllDead', 'reports');
    assert.equal(result?.count, 1);
    const q = await client.call('queues.get', { name: 'reports' });
    assert.equal(q.queue.counts.dead, 0);
    // Followed: one that dies again raises the warning a single retry's death does.
    const api = await spool();
    assert.deepEqual(dead.filter((id) => !api.context.enqueued.has(id)), []);
  },

  'Purge Queue with confirmation given empties the queue': async (config) => {
    const result = await vscode.commands.executeCommand<{ deleted: number }>('spool.queues.purge', 'paged', { confirmed: true });
    assert.equal(result?.deleted, 24);
    const q = await (await direct(configString(config, 'socketPath'))).call('queues.get', { name: 'paged' });
    assert.equal(q.queue.counts.queued, 0);
  },

  'the Schedules view shows cron in words, and Run Now / Disable / Enable / Delete work': async (config) => {
    const api = await spool();
    let nodes = await api.context.schedules.getChildren();
    const nightly = nodes.find((n) => n.schedule.name === 'nightly');
    assert.ok(nightly);
    let item = api.context.schedules.getTreeItem(nightly);
    assert.match(String(item.description), /^every day at 03:00 \(UTC\) · next in \d+[smh]$/);
    assert.equal(item.contextValue, 'schedule.enabled');
    const job = await vscode.commands.executeCommand<Job>('spool.schedules.runNow', nightly);
    assert.equal(job?.queue, 'reports');
    await waitFor('the triggered job to complete', async () => (await jobState(configString(config, 'socketPath'), job!.id)) === 'completed');
    await vscode.commands.executeCommand('spool.schedules.disable', 'nightly');
    nodes = await api.context.schedules.getChildren();
    item = api.context.schedules.getTreeItem(nodes.find((n) => n.schedule.name === 'nightly')!);
    assert.equal(item.contextValue, 'schedule.disabled');
    assert.match(String(item.description), /disabled$/);
    await vscode.commands.executeCommand('spool.schedules.enable', 'nightly');
    const created = await vscode.commands.executeCommand('spool.schedules.create', { name: 'five', cron: '*/5 * * * *', queue: 'host', job: { kind: 'shell', payload: { command: 'true' } } });
    assert.ok(created);
    nodes = await api.context.schedules.getChildren();
    assert.match(String(api.context.schedules.getTreeItem(nodes.find((n) => n.schedule.name === 'five')!).description), /^every 5 minutes/);
    await vscode.commands.executeCommand('spool.schedules.delete', 'five', { confirmed: true });
    nodes = await api.context.schedules.getChildren();
    assert.deepEqual(nodes.map((n) => n.schedule.name), ['nightly']);
  },

  'the Workers view lists the built-in executors and the seed worker': async (config) => {
    const api = await spool();
    const workers = await api.context.workers.getChildren();
    assert.ok(workers.some((w) => w.type === 'worker' && w.worker.type === 'builtin'), 'a built-in executor is listed');
    const builtin = workers.find((w) => w.type === 'worker' && w.worker.type === 'builtin' && w.worker.runningJobIds.length > 0);
    assert.ok(builtin, 'the executor running `sleep 600` shows it');
    const item = api.context.workers.getTreeItem(builtin);
    assert.match(String(item.description), /builtin · .* · 1 running · alive$/);
    // A worker that declared a capacity (spool work --capacity 6) shows it, in the description and the tooltip.
    await (await direct(configString(config, 'socketPath'))).call('workers.register', { workerId: 'e2e-capacity-worker', queues: ['heavy'], capacity: 6 });
    const heavy = await waitFor('the worker with a capacity to be listed', async () =>
      (await api.context.workers.getChildren()).find((w) => w.type === 'worker' && w.worker.id === 'e2e-capacity-worker'),
    );
    const heavyItem = api.context.workers.getTreeItem(heavy);
    assert.match(String(heavyItem.description), /^remote · heavy · 0 running · capacity 6 · seen /);
    assert.ok(heavyItem.tooltip instanceof vscode.MarkdownString && heavyItem.tooltip.value.includes('capacity 6 (job weight held at once)'), String(heavyItem.tooltip));
  },

  'Edit & Re-enqueue: saving keeps the edit, and only Enqueue Edited Job enqueues a new job': async (config) => {
    const api = await spool();
    const [done] = await children(api, (await groupNode(api, 'reports', 'Completed')).node);
    assert.ok(done && done.node.type === 'job', 'a completed job to edit');
    const uri = await vscode.commands.executeCommand<string>('spool.jobs.editAndRequeue', done.node);
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri);
    assert.ok(doc, 'the document is open');
    const replace = async (value: unknown): Promise<void> => {
      const edit = new vscode.WorkspaceEdit();
      edit.replace(doc.uri, new vscode.Range(0, 0, doc.lineCount, 0), JSON.stringify(value));
      assert.ok(await vscode.workspace.applyEdit(edit), 'the edit applies');
    };
    // Half-way through an edit, saved (auto-save does this after a few keystrokes): nothing is
    // enqueued, even though the half-edited document is a valid job.
    await replace({ queue: 'edited', kind: 'shell', payload: { command: 'echo half' } });
    assert.ok(await doc.save(), 'the half-edited document saves');
    await replace({ queue: 'edited', kind: 'shell', payload: { command: 'echo edited' } });
    const job = await vscode.commands.executeCommand<Job | undefined>('spool.jobs.enqueueEdited', doc.uri);
    assert.ok(job, 'Enqueue Edited Job enqueued a job');
    const client = await direct(configString(config, 'socketPath'));
    // The save came first, and a save that enqueued would have finished before save() returned.
    const { jobs } = await client.call('jobs.list', { queue: 'edited' });
    assert.deepEqual(jobs.map((j) => [j.id, j.payload]), [[job.id, { command: 'echo edited' }]]);
  },

  'the status bar follows counts pushed by the daemon': async (config) => {
    const api = await spool();
    const client = await direct(configString(config, 'socketPath'));
    // Jobs of earlier tests may still be running or retrying, so the totals can move on their
    // own: the status bar is compared with what the daemon counts at the same moment.
    const matchesDaemon = async (): Promise<boolean> => {
      // "queued" as the Queues view says it: due now, without the delayed and retrying jobs.
      const { totals, queues } = await client.call('stats.get');
      const due = totals.queued - queues.reduce((n, q) => n + q.delayed, 0);
      return api.statusBarText() === `$(pulse) ${totals.running} running · ${due} queued${totals.dead > 0 ? ` · ${totals.dead} dead` : ''}`;
    };
    await waitFor('the status bar to show the current counts', matchesDaemon);
    await client.call('jobs.enqueueBatch', { jobs: [1, 2, 3].map((n) => ({ queue: 'status', kind: 'report', payload: { n } })) });
    await waitFor(
      'the status bar to count the three new queued jobs',
      async () => (await client.call('queues.get', { name: 'status' })).queue.counts.queued === 3 && (await matchesDaemon()),
      10_000,
    );
    await killJobs(client, 'status', 1);
    await waitFor('the status bar to show a dead job', () => api.statusBarText().endsWith('· 1 dead'), 10_000);
  },

  'Cancel on a running job stops it': async (config) => {
    const api = await spool();
    const [running] = await children(api, (await groupNode(api, 'reports', 'Running')).node);
    assert.ok(running && running.node.type === 'job');
    await vscode.commands.executeCommand('spool.jobs.cancel', running.node);
    await waitFor('the running job to be cancelled', async () => (await jobState(configString(config, 'socketPath'), running.node.type === 'job' ? running.node.job.id : '')) === 'cancelled');
  },

  'Enqueue Current File as Shell Job runs the saved script': async (config) => {
    const fs = await import('node:fs');
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    assert.ok(folder, 'a workspace folder is open');
    const script = `${folder}/build.sh`;
    fs.writeFileSync(script, '#!/bin/sh\necho built in "$(pwd)"\n');
    const doc = await vscode.workspace.openTextDocument(script);
    await vscode.window.showTextDocument(doc);
    const job = await vscode.commands.executeCommand<Job>('spool.jobs.enqueueFile', undefined, 'default');
    assert.ok(job);
    assert.deepEqual(job.payload, { command: `/bin/sh '${script}'`, cwd: folder });
    await waitFor('the script job to complete', async () => (await jobState(configString(config, 'socketPath'), job.id)) === 'completed');
    const output = await (await direct(configString(config, 'socketPath'))).call('jobs.output', { id: job.id });
    assert.deepEqual(output.lines.map((l) => l.text), [`built in ${folder}`]);
  },

  'Enqueue Current File refuses a file that is not a script': async (config) => {
    const fs = await import('node:fs');
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    assert.ok(folder, 'a workspace folder is open');
    const settings = `${folder}/settings.json`;
    fs.writeFileSync(settings, '{ "editor.fontSize": 14 }\n');
    // It was run as `sh settings.json`; the refusal (shown as an error) enqueues nothing.
    const job = await vscode.commands.executeCommand<Job | undefined>('spool.jobs.enqueueFile', vscode.Uri.file(settings), 'not-scripts');
    assert.equal(job, undefined);
    assert.deepEqual((await (await direct(configString(config, 'socketPath'))).call('jobs.list', { queue: 'not-scripts' })).jobs, []);
  },

  'Go to Job by Id opens the details of that job': async (config) => {
    const api = await spool();
    const [done] = await children(api, (await groupNode(api, 'reports', 'Completed')).node);
    assert.ok(done && done.node.type === 'job');
    const opened = await vscode.commands.executeCommand<string>('spool.jobs.goTo', done.node.job.id);
    assert.equal(opened, done.node.job.id);
    assert.equal(api.context.jobPages.page(done.node.job.id)?.job.id, done.node.job.id, 'the job page is open');
    const missing = await vscode.commands.executeCommand('spool.jobs.goTo', '00000000-0000-7000-8000-000000000000');
    assert.equal(missing, undefined, 'an unknown id is reported, not opened');
    // The delayed job seeded before the window opened has not changed since, so the window has
    // never heard of it: its last 8 characters, as the views show them, are looked up in the daemon.
    const client = await direct(configString(config, 'socketPath'));
    const [later] = (await client.call('jobs.list', { queue: 'reports', delayed: true, limit: 1 })).jobs;
    assert.ok(later, 'the seeded delayed job');
    const short = later.id.slice(-8);
    assert.deepEqual(api.context.enqueued.idsEndingWith(short), [], 'a job this window never heard of');
    assert.equal(await vscode.commands.executeCommand<string>('spool.jobs.goTo', short.toUpperCase()), later.id);
    assert.equal(api.context.jobPages.page(later.id)?.job.id, later.id, 'its page is open');
    // Ids end in random digits: this end is checked to be no job's before it is asked for.
    if ((await client.call('jobs.list', { idSuffix: '00000000', limit: 1 })).jobs.length === 0) {
      assert.equal(await vscode.commands.executeCommand('spool.jobs.goTo', '00000000'), undefined, 'an end no job has is reported, not opened');
    }
  },

  'Copy Job Id and Copy Job Payload put them on the clipboard': async () => {
    const api = await spool();
    const [done] = await children(api, (await groupNode(api, 'reports', 'Completed')).node);
    assert.ok(done && done.node.type === 'job');
    await vscode.commands.executeCommand('spool.jobs.copyId', done.node);
    assert.equal(await vscode.env.clipboard.readText(), done.node.job.id);
    await vscode.commands.executeCommand('spool.jobs.copyPayload', done.node);
    assert.deepEqual(JSON.parse(await vscode.env.clipboard.readText()), done.node.job.payload);
  },

  'the Schedules and Workers filters narrow their views and show in the description': async () => {
    const api = await spool();
    await vscode.commands.executeCommand('spool.schedules.filter', 'no-such-schedule');
    assert.deepEqual(await api.context.schedules.getChildren(), []);
    assert.equal(api.context.schedulesView.description, 'filter: "no-such-schedule"');
    await vscode.commands.executeCommand('spool.schedules.filter', '');
    assert.equal((await api.context.schedules.getChildren()).length, 1);
    await vscode.commands.executeCommand('spool.workers.filter', 'seed');
    const workers = await api.context.workers.getChildren();
    assert.deepEqual(workers.map((w) => (w.type === 'worker' ? w.worker.id : '')), ['e2e-seed-worker']);
    await vscode.commands.executeCommand('spool.workers.filter', '');
    assert.equal(api.context.workersView.description, undefined);
  },

  'Stop Daemon disconnects and the status bar says so': async () => {
    const api = await spool();
    await vscode.commands.executeCommand('spool.daemon.stop', { confirmed: true });
    assert.equal(api.context.connection.state, 'disconnected');
    assert.equal(api.statusBarText(), '$(debug-disconnect) Spool: disconnected');
    daemon?.close();
  },
});

async function killJobs(client: SpoolClient, queue: string, count: number): Promise<void> {
  await client.call('workers.register', { workerId: 'host-worker', queues: [queue], kinds: ['report'] });
  const { jobs } = await client.call('jobs.claim', { workerId: 'host-worker', queues: [queue], kinds: ['report'], max: count });
  for (const job of jobs) await client.call('jobs.fail', { id: job.id, workerId: 'host-worker', error: 'failed on purpose', permanent: true });
}
