/**
 * Objects a jobs file owns, in VS Code (owned.test.ts applies the workspace's spool.jsonc with
 * `spool apply` and makes the queue `by-hand` by hand): the Queues and Schedules views mark what
 * the file owns, their menus offer Reveal in spool.jsonc there and nowhere else, and Reveal opens
 * the file with the object's name selected.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { ScheduleNode } from '../../../extension/views/schedulesProvider';
import { connected, queueNode, spool, waitFor } from './api';
import { hostSuite } from './framework';
import { menuFor } from './menus';

const MARK = ' · spool.jsonc (project e2e-owned)';
const TIP = 'Declared in spool.jsonc of project e2e-owned; changes made here are reported as drift by spool plan.';

/** The tooltip as it reads: a Markdown tooltip's escapes (`&nbsp;`, `\\-`) undone. */
function tooltipText(item: vscode.TreeItem): string {
  const t = item.tooltip;
  return (typeof t === 'string' ? t : (t?.value ?? '')).replace(/&nbsp;/g, ' ').replace(/\\(.)/g, '$1');
}

async function scheduleNode(name: string): Promise<{ node: ScheduleNode; item: vscode.TreeItem }> {
  const api = await spool();
  return waitFor(`schedule ${name} in the Schedules view`, async () => {
    const node = (await api.context.schedules.getChildren()).find((n) => n.schedule.name === name);
    return node ? { node, item: api.context.schedules.getTreeItem(node) } : undefined;
  });
}

/** The workspace's spool.jsonc, and the range of `"name"`'s first occurrence in it. */
async function keyRange(name: string): Promise<{ uri: vscode.Uri; range: vscode.Range }> {
  const folder = vscode.workspace.workspaceFolders?.[0];
  assert.ok(folder, 'a workspace folder');
  const uri = vscode.Uri.joinPath(folder.uri, 'spool.jsonc');
  const document = await vscode.workspace.openTextDocument(uri);
  const at = document.getText().indexOf(`"${name}"`);
  assert.ok(at >= 0, `the file names ${name}`);
  return { uri, range: new vscode.Range(document.positionAt(at), document.positionAt(at + name.length + 2)) };
}

async function closeEditors(): Promise<void> {
  await vscode.commands.executeCommand('workbench.action.closeAllEditors');
}

function assertRevealed(editor: vscode.TextEditor | undefined, expected: { uri: vscode.Uri; range: vscode.Range }): void {
  assert.ok(editor, 'an editor is open');
  assert.equal(editor.document.uri.toString(), expected.uri.toString());
  assert.equal(vscode.window.activeTextEditor?.document.uri.toString(), expected.uri.toString(), 'the file is the active editor');
  const s = editor.selection;
  assert.deepEqual([s.start.line, s.start.character, s.end.line, s.end.character], [expected.range.start.line, expected.range.start.character, expected.range.end.line, expected.range.end.character]);
}

export const run = hostSuite({
  'the queue and the schedule the file owns are marked, with Reveal in their menus; the hand-made queue is not': async () => {
    const api = await spool();
    await connected(api);
    const mail = await waitFor('queue mail to show its owner', async () => {
      const q = await queueNode(api, 'mail');
      return String(q.item.description).endsWith(MARK) ? q : undefined;
    });
    assert.equal(mail.item.contextValue, 'queue.active.owned');
    assert.ok(tooltipText(mail.item).endsWith(TIP), tooltipText(mail.item));
    const queueMenu = menuFor('spool.queues', 'queue.active.owned');
    assert.ok(queueMenu.context.includes('spool.jobsFile.reveal'));
    // The marker keeps every other command where it was.
    assert.deepEqual(queueMenu.inline, menuFor('spool.queues', 'queue.active').inline);
    assert.deepEqual(queueMenu.context.filter((c) => c !== 'spool.jobsFile.reveal'), menuFor('spool.queues', 'queue.active').context);
    assert.deepEqual(menuFor('spool.queues', 'queue.paused.hasDead.owned').context.filter((c) => c !== 'spool.jobsFile.reveal'), menuFor('spool.queues', 'queue.paused.hasDead').context);

    const byHand = await queueNode(api, 'by-hand');
    assert.equal(byHand.item.contextValue, 'queue.active');
    assert.ok(!String(byHand.item.description).includes('spool.jsonc'), String(byHand.item.description));
    assert.ok(!tooltipText(byHand.item).includes('Declared in'));
    assert.ok(!menuFor('spool.queues', 'queue.active').context.includes('spool.jobsFile.reveal'));
    assert.ok(!menuFor('spool.queues', 'queue.active.hasDead').context.includes('spool.jobsFile.reveal'));

    const nightly = await scheduleNode('nightly-mail');
    assert.ok(String(nightly.item.description).endsWith(MARK), String(nightly.item.description));
    assert.equal(nightly.item.contextValue, 'schedule.enabled.owned');
    assert.ok(tooltipText(nightly.item).endsWith(TIP), tooltipText(nightly.item));
    const scheduleMenu = menuFor('spool.schedules', 'schedule.enabled.owned');
    assert.ok(scheduleMenu.context.includes('spool.jobsFile.reveal'));
    assert.deepEqual(scheduleMenu.context.filter((c) => c !== 'spool.jobsFile.reveal'), menuFor('spool.schedules', 'schedule.enabled').context);
    assert.deepEqual(menuFor('spool.schedules', 'schedule.disabled.owned').context.filter((c) => c !== 'spool.jobsFile.reveal'), menuFor('spool.schedules', 'schedule.disabled').context);
    assert.ok(!menuFor('spool.schedules', 'schedule.enabled').context.includes('spool.jobsFile.reveal'));
  },

  'Reveal in spool.jsonc opens the file with the queue\'s name selected': async () => {
    const api = await spool();
    await closeEditors();
    const mail = await queueNode(api, 'mail');
    const editor = await vscode.commands.executeCommand<vscode.TextEditor | undefined>('spool.jobsFile.reveal', mail.node);
    assertRevealed(editor, await keyRange('mail'));
  },

  'Reveal in spool.jsonc opens the file with the schedule\'s name selected': async () => {
    await closeEditors();
    const nightly = await scheduleNode('nightly-mail');
    const editor = await vscode.commands.executeCommand<vscode.TextEditor | undefined>('spool.jobsFile.reveal', nightly.node);
    assertRevealed(editor, await keyRange('nightly-mail'));
  },
});
