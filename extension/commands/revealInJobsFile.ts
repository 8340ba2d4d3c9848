/**
 * Reveal in spool.jsonc: on a queue or schedule a project's `spool apply` manages, opens the
 * workspace's jobs file whose `project` is the owner and selects the object's name. The files at
 * the workspace folders' roots (where the file belongs) are read first; other folders are searched
 * only when none of those is the owner's. Works without a daemon: the item already names its owner.
 */
import * as vscode from 'vscode';
import type { ObjectType } from '../../shared/jobsfile';
import type { SpoolContext } from '../context';
import { findDeclaration } from '../jobsFileDeclaration';
import { isQueueNode } from '../views/queues/nodes';
import { isScheduleNode } from '../views/schedulesProvider';
import { command } from './command';
import { errorMessage } from '../../shared/protocol/errors';

/** The jobs file's names, in the order they are looked for in a folder. */
const FILE_NAMES = ['spool.jsonc', 'spool.json'];

/** An owned object, as the tree item shows it. */
interface Owned {
  type: ObjectType;
  name: string;
  owner: string;
}

function ownedOf(arg: unknown): Owned {
  if (isQueueNode(arg)) {
    if (arg.queue.owner === undefined) throw new Error(`Queue ${arg.queue.name} is not declared in a jobs file: it was made by hand or by its first job.`);
    return { type: 'queue', name: arg.queue.name, owner: arg.queue.owner };
  }
  if (isScheduleNode(arg)) {
    if (arg.schedule.owner === undefined) throw new Error(`Schedule ${arg.schedule.name} is not declared in a jobs file: it was made by hand.`);
    return { type: 'schedule', name: arg.schedule.name, owner: arg.schedule.owner };
  }
  throw new Error('Right-click a queue or schedule marked "spool.jsonc" in the Spool views to reveal it.');
}

/** The jobs files at the roots of the workspace folders that exist. */
export async function rootFiles(): Promise<vscode.Uri[]> {
  const found: vscode.Uri[] = [];
  for (const folder of vscode.workspace.workspaceFolders ?? []) {
    for (const name of FILE_NAMES) {
      const uri = vscode.Uri.joinPath(folder.uri, name);
      try {
        await vscode.workspace.fs.stat(uri);
        found.push(uri);
      } catch {
        // No such file in this folder.
      }
    }
  }
  return found;
}

/** The jobs files below the roots. A search that fails (no search provider) finds none. */
async function nestedFiles(ctx: SpoolContext, roots: readonly vscode.Uri[]): Promise<vscode.Uri[]> {
  try {
    const all = await vscode.workspace.findFiles(`**/{${FILE_NAMES.join(',')}}`, '**/node_modules/**', 100);
    const seen = new Set(roots.map((u) => u.toString()));
    return all.filter((u) => !seen.has(u.toString()));
  } catch (error) {
    ctx.log.warn(`Reveal in spool.jsonc: the workspace could not be searched for jobs files: ${errorMessage(error)}`);
    return [];
  }
}

/** Opens `uri` with `range` selected and in view. */
async function reveal(uri: vscode.Uri, range: vscode.Range): Promise<vscode.TextEditor> {
  const document = await vscode.workspace.openTextDocument(uri);
  return vscode.window.showTextDocument(document, { selection: range, preview: false });
}

export const revealInJobsFile = command(
  'spool.jobsFile.reveal',
  async (ctx, arg) => {
    const owned = ownedOf(arg);
    const roots = await rootFiles();
    // The owner's file without the object: kept to open it if no other file declares the object.
    let ownerFile: vscode.Uri | undefined;
    for (const files of [roots, null]) {
      for (const uri of files ?? (await nestedFiles(ctx, roots))) {
        const text = new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
        const found = findDeclaration(text, owned.owner, owned.type, owned.name);
        if (found.found === 'declared') {
          const { start, end } = found.key;
          return reveal(uri, new vscode.Range(start.line, start.character, end.line, end.character));
        }
        if (found.found === 'project') ownerFile ??= uri;
      }
    }
    if (ownerFile !== undefined) {
      void vscode.window.showWarningMessage(
        `${vscode.workspace.asRelativePath(ownerFile)} of project ${owned.owner} no longer declares ${owned.type} ${owned.name}: spool plan lists it to delete.`,
      );
      return reveal(ownerFile, new vscode.Range(0, 0, 0, 0));
    }
    void vscode.window.showInformationMessage(`No spool.jsonc in this workspace declares project ${owned.owner}.`);
    return undefined;
  },
  false,
);
