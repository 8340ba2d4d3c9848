/**
 * Edit Job in the extension host, with auto-save on (test/e2e/editJob.test.ts sets it): an edit
 * that auto-save saves changes nothing in the daemon; Apply Job Edit does, with the fields that
 * differ; a job that started while its document was open is refused, saying so, and unchanged.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { SpoolClient } from '../../../shared/client/client';
import type { Job } from '../../../shared/protocol/types';
import { connected, spool, waitFor } from './api';
import { configString, hostSuite } from './framework';

/** Replaces the whole text of `doc`, as typing over it would. */
async function replace(doc: vscode.TextDocument, text: string): Promise<void> {
  const edit = new vscode.WorkspaceEdit();
  edit.replace(doc.uri, new vscode.Range(0, 0, doc.lineCount, 0), text);
  assert.ok(await vscode.workspace.applyEdit(edit), 'the edit applies');
}

async function openEdit(id: string): Promise<vscode.TextDocument> {
  const uri = await vscode.commands.executeCommand<string>('spool.jobs.edit', id);
  const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri);
  assert.ok(doc, 'the Edit Job document is open');
  return doc;
}

export const run = hostSuite({
  'Edit Job: auto-save applies nothing, Apply Job Edit applies the change, and a job that started meanwhile is refused': async (config) => {
    const api = await spool();
    await connected(api);
    const client = await SpoolClient.connect({ socketPath: configString(config, 'socketPath') });
    try {
      const { job } = await client.call('jobs.enqueue', { queue: 'edits', kind: 'report', payload: { n: 1 }, delayMs: 3_600_000 });
      const doc = await openEdit(job.id);
      const fields: unknown = JSON.parse(doc.getText());
      assert.deepEqual(fields, { priority: 0, runAt: new Date(job.runAt).toISOString(), maxAttempts: job.maxAttempts, timeoutMs: job.timeoutMs, tags: [], weight: 1, group: null, payload: { n: 1 } });
      await replace(doc, doc.getText().replace('"priority": 0', '"priority": 7').replace('"n": 1', '"n": 2'));
      assert.equal(doc.isDirty, true);
      await waitFor('auto-save to save the edited document', () => !doc.isDirty, 20_000);
      const saved = (await client.call('jobs.get', { id: job.id })).job;
      assert.deepEqual([saved.priority, saved.payload], [0, { n: 1 }], 'the save applied nothing');

      const applied = await vscode.commands.executeCommand<Job | undefined>('spool.jobs.applyEdit', doc.uri);
      assert.deepEqual([applied?.priority, applied?.payload], [7, { n: 2 }]);
      const stored = (await client.call('jobs.get', { id: job.id })).job;
      assert.deepEqual([stored.priority, stored.payload, stored.state], [7, { n: 2 }, 'queued'], 'Apply Job Edit changed the job itself');

      // A job a worker takes while its document is open.
      const { job: other } = await client.call('jobs.enqueue', { queue: 'edits-started', kind: 'report', payload: { n: 1 } });
      const otherDoc = await openEdit(other.id);
      await client.call('workers.register', { workerId: 'edit-worker', queues: ['edits-started'], kinds: ['report'] });
      const { jobs } = await client.call('jobs.claim', { workerId: 'edit-worker', queues: ['edits-started'], kinds: ['report'] });
      assert.deepEqual(jobs.map((j) => j.id), [other.id]);
      await replace(otherDoc, otherDoc.getText().replace('"priority": 0', '"priority": 3'));
      await assert.rejects(api.context.editor.applyEdit(otherDoc), /The edit was not applied: job .* is running now \(it started meanwhile\)\./);
      assert.equal((await client.call('jobs.get', { id: other.id })).job.priority, 0, 'nothing was applied');
    } finally {
      client.close();
    }
  },
});
