/**
 * The documents the extension provides, against a daemon the outside test started
 * (documents.test.ts): a job's output document holds no more than the daemon keeps, a job that
 * cannot be read leaves nothing followed, and a closed Edit & Re-enqueue document is forgotten.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { SpoolClient } from '../../../shared/client/client';
import { LIMITS } from '../../../shared/protocol';
import type { OutputLine } from '../../../shared/protocol/types';
import { editUri } from '../../../extension/documents/editPayload';
import { jobOutputUri } from '../../../extension/documents/jobOutput';
import { connected, spool, waitFor } from './api';
import { configString, hostSuite, type HostConfig } from './framework';

let daemon: SpoolClient | undefined;
async function direct(config: HostConfig): Promise<SpoolClient> {
  daemon ??= await SpoolClient.connect({ socketPath: configString(config, 'socketPath') });
  return daemon;
}

/** Every line the daemon keeps for the job, as the output document shows them. */
async function daemonLines(client: SpoolClient, id: string): Promise<string[]> {
  const lines: OutputLine[] = [];
  for (let after = 0; ; ) {
    const page = await client.call('jobs.output', { id, after, limit: 1000 });
    lines.push(...page.lines);
    after = page.nextAfter;
    if (page.lines.length < 1000) break;
  }
  return lines.map((l) => (l.stream === 'marker' ? `--- ${l.text} ---` : l.text));
}

export const run = hostSuite({
  'a job printing more lines than the daemon keeps leaves only the kept lines in its output document, below a marker': async (config) => {
    const api = await spool();
    await connected(api);
    const client = await direct(config);
    const go = path.join(configString(config, 'scratch'), 'go-on-printing');
    // The first 8,000 lines are read into the document before the rest arrive; the daemon then
    // drops the oldest 5,000, and so must the document.
    const { job } = await client.call('jobs.enqueue', {
      queue: 'docs',
      kind: 'shell',
      payload: { command: 'seq 1 8000; while [ ! -f "$GO" ]; do sleep 0.1; done; seq 8001 15000', env: { GO: go } },
    });
    const doc = await vscode.workspace.openTextDocument(jobOutputUri(job));
    await waitFor('the first 8,000 lines in the document', () => doc.lineCount > 8000 && doc.lineAt(7999).text === '8000');
    fs.writeFileSync(go, '');
    await waitFor('the end of the job in the document', () => doc.getText().includes('--- the job completed ---'), 60_000);
    const kept = await daemonLines(client, job.id);
    assert.equal(kept.length, LIMITS.maxOutputLinesPerJob + 1, 'the daemon keeps its cap and one marker');
    assert.equal(kept[0], '--- [5000 older lines dropped] ---');
    const shown = doc.getText().split('\n');
    assert.equal(shown.length, kept.length + 3, `the document has ${shown.length} lines, starting with "${shown[0]}"`);
    assert.deepEqual(shown.slice(0, kept.length), kept, 'the document shows what the daemon keeps');
    assert.deepEqual(shown.slice(kept.length), ['', '--- the job completed ---', '']);
  },

  'a job that runs again, retried or not, shows where each run begins in its output document': async (config) => {
    await connected(await spool());
    const client = await direct(config);
    // Fails on its first attempt, succeeds on its second.
    const tried = path.join(configString(config, 'scratch'), 'tried-once');
    const { job } = await client.call('jobs.enqueue', {
      queue: 'docs-runs',
      kind: 'shell',
      payload: { command: 'if [ -e "$TRIED" ]; then echo ok; else touch "$TRIED"; echo fail; exit 1; fi', env: { TRIED: tried } },
      maxAttempts: 2,
      backoff: { strategy: 'fixed', baseMs: 100, jitter: 0 },
    });
    const doc = await vscode.workspace.openTextDocument(jobOutputUri(job));
    await waitFor('the end of the job in the document', () => doc.getText().includes('--- the job completed ---'), 60_000);
    assert.equal(doc.getText(), 'fail\n--- run 2 (attempt 2) ---\nok\n\n--- the job completed ---\n');
    // Retried, it runs again as attempt 1: the open document follows it, and its heading names
    // the run, not only the attempt.
    await client.call('jobs.retry', { id: job.id });
    const retried = 'fail\n--- run 2 (attempt 2) ---\nok\n--- run 3 (attempt 1) ---\nok\n\n--- the job completed ---\n';
    await waitFor('the third run in the document', () => doc.getText() === retried, 60_000);
  },

  "a running job's output opens at its end and follows new lines, until the reader scrolls up": async (config) => {
    await connected(await spool());
    const client = await direct(config);
    const scratch = configString(config, 'scratch');
    const [more, most] = [path.join(scratch, 'follow-more'), path.join(scratch, 'follow-most')];
    const { job } = await client.call('jobs.enqueue', {
      queue: 'docs-follow',
      kind: 'shell',
      payload: { command: 'seq 1 300; while [ ! -f "$MORE" ]; do sleep 0.1; done; seq 301 600; while [ ! -f "$MOST" ]; do sleep 0.1; done; seq 601 900', env: { MORE: more, MOST: most } },
    });
    const doc = await vscode.workspace.openTextDocument(jobOutputUri(job));
    const editor = await vscode.window.showTextDocument(doc, { preview: false });
    const lastShown = (): number => editor.visibleRanges.at(-1)?.end.line ?? -1;
    await waitFor('the first 300 lines in the document', () => doc.lineCount > 300 && doc.lineAt(299).text === '300');
    await waitFor(`the editor at the end (it shows up to line ${lastShown() + 1})`, () => lastShown() >= 299);
    assert.equal(editor.selection.active.line, doc.lineCount - 1, 'the cursor is at the end');
    fs.writeFileSync(more, '');
    await waitFor(`line 600 in view (the editor shows up to line ${lastShown() + 1})`, () => doc.lineCount > 600 && lastShown() >= 599);
    // Scrolled up to read, the editor stays where the reader is as more lines arrive.
    editor.revealRange(new vscode.Range(10, 0, 10, 0), vscode.TextEditorRevealType.AtTop);
    await waitFor('the editor scrolled up', () => lastShown() < 200);
    fs.writeFileSync(most, '');
    await waitFor('the last lines in the document', () => doc.getText().includes('--- the job completed ---'), 60_000);
    assert.ok(lastShown() < 200, `the editor stayed where the reader scrolled to, showing up to line ${lastShown() + 1}`);
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  },

  'opening the output of a job that was deleted fails and leaves nothing followed': async (config) => {
    const api = await spool();
    const client = await direct(config);
    const { job } = await client.call('jobs.enqueue', { queue: 'docs-deleted', kind: 'shell', payload: { command: 'true' }, delayMs: 3_600_000 });
    await client.call('jobs.delete', { id: job.id });
    await assert.rejects(Promise.resolve(vscode.workspace.openTextDocument(jobOutputUri(job))));
    assert.ok(!api.jobOutput.followedJobs.includes(job.id), `still following ${job.id}: ${api.jobOutput.followedJobs.join(', ')}`);
  },

  'closing an Edit & Re-enqueue document drops its copy of the job': async (config) => {
    const api = await spool();
    const client = await direct(config);
    const { job } = await client.call('jobs.enqueue', { queue: 'docs-edit', kind: 'shell', payload: { command: 'true' }, delayMs: 3_600_000 });
    const uri = editUri(job.id);
    const name = path.posix.basename(uri.path);
    const held = (): boolean => api.context.editor.readDirectory().some(([file]) => file === name);
    assert.equal(api.context.editor.prepare(job).toString(), uri.toString());
    // Opened the way a user opens a file, so that closing its editor also closes the document
    // (a document an extension opened itself stays open for a while after its editor closed).
    await vscode.commands.executeCommand('vscode.open', uri);
    await waitFor('the document to open', () => vscode.workspace.textDocuments.some((d) => d.uri.toString() === uri.toString()));
    assert.ok(held(), 'the editor holds the job while its document is open');
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
    await waitFor('the document to close', () => !vscode.workspace.textDocuments.some((d) => d.uri.toString() === uri.toString()));
    await waitFor('the editor to forget the job', () => !held(), 10_000);
  },
});
