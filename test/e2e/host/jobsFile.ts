/**
 * The jobs file in VS Code (jobsFile.test.ts starts the daemon and code-server): the language
 * server the extension starts through vscode-languageclient underlines a bad cron where it is
 * wrong, answers a hover on a cron with its next runs, and shows code lenses with live counts.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { SpoolClient } from '../../../shared/client/client';
import { spool, waitFor } from './api';
import { configString, hostSuite } from './framework';

const TEXT = `{
  "project": "e2e",
  "queues": { "work": {} },
  "templates": { "job": { "queue": "work", "kind": "thumbnail", "payload": 1 } },
  "schedules": {
    "good": { "cron": "0 3 * * *", "template": "job" },
    "bad": { "cron": "0 3 * * 9", "template": "job" }
  }
}
`;

/** Writes the file into the workspace folder and opens it in an editor. */
async function openJobsFile(): Promise<vscode.TextEditor> {
  const folder = vscode.workspace.workspaceFolders?.[0];
  assert.ok(folder, 'a workspace folder');
  // A folder of its own: the UI test of jobsFile.test.ts opens the workspace's spool.jsonc.
  const file = path.join(folder.uri.fsPath, 'host', 'spool.jsonc');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, TEXT);
  const doc = await vscode.workspace.openTextDocument(file);
  return vscode.window.showTextDocument(doc);
}

export const run = hostSuite({
  'a bad cron is underlined where it is wrong, and a hover on a cron gives its next runs': async () => {
    await spool();
    const editor = await openJobsFile();
    const uri = editor.document.uri;
    const diagnostics = await waitFor('the language server\'s diagnostics', () => {
      const d = vscode.languages.getDiagnostics(uri).filter((x) => x.source === 'spool');
      return d.length > 0 ? d : undefined;
    });
    const bad = TEXT.indexOf('9",');
    assert.equal(diagnostics.length, 1, JSON.stringify(diagnostics));
    const d = diagnostics[0];
    assert.ok(d);
    assert.equal(d.severity, vscode.DiagnosticSeverity.Error);
    assert.equal(d.code, 'invalid-cron');
    assert.deepEqual([d.range.start.line, d.range.start.character, d.range.end.character], [editor.document.positionAt(bad).line, editor.document.positionAt(bad).character, editor.document.positionAt(bad).character + 1]);

    const at = editor.document.positionAt(TEXT.indexOf('0 3 * * *') + 2);
    const hovers = await waitFor('a hover on the cron', async () => {
      const h = await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', uri, at);
      return h.length > 0 ? h : undefined;
    });
    const text = hovers.flatMap((h) => h.contents.map((c) => (typeof c === 'string' ? c : c.value))).join('\n');
    assert.match(text, /every day at 03:00/);
    assert.equal(text.split('\n').filter((l) => /^- \w{3} \d{1,2} \w{3} \d{4} 03:00 UTC$/.test(l)).length, 5, text);
  },
  'the jobs file is a Spool Jobs File: each completion once, and only the language server\'s problems': async () => {
    const editor = await openJobsFile();
    const uri = editor.document.uri;
    // As JSON with a schema, VS Code's JSON service answered beside the language server.
    assert.equal(editor.document.languageId, 'spool-jobs');
    const inQueue = editor.document.positionAt(TEXT.indexOf('"work": {') + '"work": {'.length);
    const items = await waitFor('completions in a queue', async () => {
      const list = await vscode.commands.executeCommand<vscode.CompletionList>('vscode.executeCompletionItemProvider', uri, inQueue);
      return list.items.length > 0 ? list.items : undefined;
    });
    const labels = items.map((i) => (typeof i.label === 'string' ? i.label : i.label.label));
    assert.ok(labels.some((l) => l.includes('concurrency')), labels.join(', '));
    assert.deepEqual(labels.filter((l, i) => labels.indexOf(l) !== i), [], 'no completion twice');
    await waitFor('the language server\'s diagnostics', () => vscode.languages.getDiagnostics(uri).some((d) => d.source === 'spool'));
    assert.deepEqual(vscode.languages.getDiagnostics(uri).filter((d) => d.source !== 'spool').map((d) => `${String(d.source)}: ${d.message}`), []);
  },
  'code lenses run on the server: Run now and Enqueue, and the queue\'s live count': async () => {
    const editor = await openJobsFile();
    const lenses = await waitFor('the lenses with a live count', async () => {
      const l = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', editor.document.uri, 100);
      const titles = l.map((x) => x.command?.title ?? '');
      return titles.some((t) => /queued/.test(t)) ? titles : undefined;
    });
    // A daemon with project.state adds the Apply lens at the top (the next test).
    assert.deepEqual(lenses.filter((t) => !t.startsWith('Apply')), ['1 queued', 'Enqueue', 'Run now']);
  },
  'the Apply lens applies the file, when the daemon has project.apply': async (config) => {
    const client = await SpoolClient.connect({ socketPath: configString(config, 'socketPath') });
    try {
      try {
        await client.callUnchecked('project.state', { project: 'e2e' });
      } catch {
        // An older daemon: no Apply lens to click (the language server's tests cover that case).
        return;
      }
      const editor = await openJobsFile();
      const uri = editor.document.uri;
      const lensAt = async (title: RegExp) => {
        const l = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', uri, 100);
        return l.find((x) => title.test(x.command?.title ?? ''));
      };
      // The file has an error (the bad cron): fix it, so there is something to apply.
      await editor.edit((e) => e.replace(new vscode.Range(editor.document.positionAt(TEXT.indexOf('9",')), editor.document.positionAt(TEXT.indexOf('9",') + 1)), '1'));
      const apply = await waitFor('the Apply lens', () => lensAt(/^Apply \(\d+ changes?\)$/));
      assert.ok(apply.command);
      // The lens's command runs on the server; the language client forwards it. Apply asks first
      // (a modal question naming the daemon); `{ confirmed: true }` is the answer given.
      await vscode.commands.executeCommand(apply.command.command, ...(apply.command.arguments ?? []), { confirmed: true });
      await waitFor('the lens to say it is applied', () => lensAt(/^Applied: no changes$/));
      const state = (await client.callUnchecked('project.state', { project: 'e2e' })) as { objects: { type: string; name: string; owner?: string }[] };
      assert.deepEqual(state.objects.filter((o) => o.owner === 'e2e').map((o) => `${o.type} ${o.name}`).sort(), ['queue work', 'schedule bad', 'schedule good', 'template job']);
    } finally {
      client.close();
    }
  },
});
