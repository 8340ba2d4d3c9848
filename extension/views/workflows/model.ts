/**
 * What the Workflows view lists and says, as pure functions (no `vscode`, no clock of its own):
 * the workflows the daemon holds, then those of the workspace's jobs files it does not hold yet
 * (run as the file declares them), each with its last run; a run in a line; and the checks on a
 * parameter's value typed before a run.
 */
import { relativeTime } from '../../../shared/domain/present';
import { paramTypeProblem } from '../../../shared/jobsfile';
import type { DeclaredWorkflow, WorkflowParam } from '../../../shared/protocol/projects';
import type { Workflow, WorkflowRun } from '../../../shared/protocol/workflows';
import { runCounts } from '../workflowRun/render';

export { runName } from '../workflowRun/render';

/** A workflow the view lists. */
export interface WorkflowEntry {
  name: string;
  description?: string;
  params: Record<string, WorkflowParam>;
  /** The daemon holds it (applied), or only a jobs file of the workspace declares it. */
  source: 'daemon' | 'file';
  /** The project that applied it (daemon), when one did. */
  owner: string | null;
  lastRun: WorkflowRun | null;
  /** A file's workflow: the definition `workflows.run` is sent, and the file it is read from. */
  definition?: DeclaredWorkflow;
  file?: string;
}

/** The daemon's workflows by name, then the files' workflows the daemon does not hold, by name. */
export function workflowEntries(held: readonly Workflow[], files: readonly { file: string; workflows: readonly DeclaredWorkflow[] }[]): WorkflowEntry[] {
  const entries: WorkflowEntry[] = [...held]
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((w) => ({ name: w.name, params: w.params, source: 'daemon', owner: w.owner, lastRun: w.lastRun, ...(w.description !== undefined ? { description: w.description } : {}) }));
  const names = new Set(entries.map((e) => e.name));
  const fromFiles: WorkflowEntry[] = [];
  for (const { file, workflows } of files) {
    for (const w of workflows) {
      if (names.has(w.name)) continue;
      names.add(w.name);
      fromFiles.push({ name: w.name, params: w.params, source: 'file', owner: null, lastRun: null, definition: w, file, ...(w.description !== undefined ? { description: w.description } : {}) });
    }
  }
  return [...entries, ...fromFiles.sort((a, b) => a.name.localeCompare(b.name))];
}

/** A run's row: "failed · 1 dead · 4 completed · 3m ago" (when it started). */
export function runDescription(run: WorkflowRun, now: number): string {
  return `${run.state} · ${runCounts(run)} · ${relativeTime(run.createdAt, now)}`;
}

/** A workflow's row: the file it is read from when not applied, its last run's state and when. */
export function workflowDescription(entry: WorkflowEntry, now: number): string {
  const parts: string[] = [];
  if (entry.source === 'file') parts.push('spool.jsonc, not applied');
  if (entry.lastRun) parts.push(`last run ${entry.lastRun.state} ${relativeTime(entry.lastRun.createdAt, now)}`);
  else if (entry.source === 'daemon') parts.push('never run');
  return parts.join(' · ');
}

/** Why a typed value does not fit its parameter, or null when it does (empty: the default, when there is one). */
export function paramProblem(name: string, param: Pick<WorkflowParam, 'type' | 'default'>, text: string): string | null {
  if (text === '' && param.default === undefined) return `${name} has no default: give a value.`;
  const wrong = text === '' ? null : paramTypeProblem(param, text);
  return wrong === null ? null : `${name} must be ${wrong}.`;
}
