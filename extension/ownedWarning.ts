/**
 * After a change made from the editor to a queue or schedule that a jobs file owns (configure,
 * pause, resume, enable, disable, delete): a warning that the next `spool apply` undoes it, in
 * the CLI's words (shared/jobsfile/owned.ts), naming the workspace's jobs file of that project
 * when there is one at a workspace folder's root, else the project.
 */
import * as vscode from 'vscode';
import { ownedChangeNote, parseJobsFile, type OwnedObject } from '../shared/jobsfile';
import { rootFiles } from './commands/revealInJobsFile';

/** The jobs file at a workspace folder's root that declares `project`, as the workspace names it; null if none. */
async function projectFile(project: string): Promise<string | null> {
  for (const uri of await rootFiles()) {
    try {
      const text = new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
      if (parseJobsFile(text).partial.project === project) return vscode.workspace.asRelativePath(uri);
    } catch {
      // Unreadable: not the file to name.
    }
  }
  return null;
}

/** Shows the warning when `owner` is set (the object is a project's); does nothing otherwise. Not awaited by callers' results. */
export async function warnIfOwned(type: OwnedObject, name: string, owner: string | undefined, change: 'changed' | 'deleted'): Promise<void> {
  if (owner === undefined) return;
  const note = ownedChangeNote(type, name, owner, change, await projectFile(owner));
  if (note !== null) void vscode.window.showWarningMessage(note);
}
