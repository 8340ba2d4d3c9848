/**
 * Code lenses, each a server-side command (`workspace/executeCommand`) so any editor can run it:
 * `Apply (N changes)` at the top when the daemon's state is known (`Apply to tls://host:port (N
 * changes)` when the daemon is on another machine); `Run now` on each schedule;
 * `Enqueue` on each template; live counts on each queue (`3 queued · 1 dead`) when a daemon
 * answered; `Run workflow` on each workflow without errors, and beside it the last run's counts
 * (`last run 2m ago: 4 succeeded, 1 running`). Without a daemon only the lenses that need none of
 * its data are shown.
 */
import type { CodeLens } from 'vscode-languageserver-types';
import { countChanges, planChanges } from '../../shared/jobsfile';
import { COMMANDS } from './commands';
import { rangeOf, type JobsDocument } from './document';
import { liveCountsText, type LiveData } from './live';
import { workflowKeys } from './workflows';
import { relativeTime, runCountsText } from '../../shared/domain/present';

/**
 * The lenses of a document; `uri` is handed to the commands as their first argument. `now` dates
 * the last runs ("2m ago").
 */
export function codeLenses(doc: JobsDocument, uri: string, live: LiveData, now = 0): CodeLens[] {
  const lenses: CodeLens[] = [];
  const top = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };
  if (live.objects !== undefined && doc.parse.partial.project !== '') {
    const errors = doc.parse.problems.filter((p) => p.severity === 'error').length;
    if (doc.parse.declaration === null) {
      lenses.push({ range: top, command: { title: `Apply: fix ${errors} error${errors === 1 ? '' : 's'} first`, command: '' } });
    } else {
      const plan = planChanges(doc.parse.declaration, { objects: [...live.objects] });
      const counts = countChanges(plan);
      const n = counts.create + counts.update + counts.delete;
      lenses.push({
        range: top,
        command:
          plan.conflicts.length > 0
            ? { title: `Apply: ${plan.conflicts.length} name conflict${plan.conflicts.length === 1 ? '' : 's'} with the daemon`, command: '' }
            : n === 0
              ? { title: 'Applied: no changes', command: '' }
              : { title: `Apply${live.remote === undefined ? '' : ` to ${live.remote}`} (${n} change${n === 1 ? '' : 's'})`, command: COMMANDS.apply, arguments: [uri] },
      });
    }
  }
  const liveQueues = live.queues === undefined ? undefined : new Map(live.queues.map((q) => [q.name, q]));
  // Run now and Enqueue only on objects that read without errors: the others cannot run.
  const schedules = new Set(doc.parse.partial.schedules.map((s) => s.name));
  const templates = new Set(doc.parse.partial.templates.map((t) => t.name));
  for (const location of doc.parse.locations) {
    const range = rangeOf(location.key);
    if (location.type === 'schedule') {
      if (schedules.has(location.name)) lenses.push({ range, command: { title: 'Run now', command: COMMANDS.runSchedule, arguments: [uri, location.name] } });
    } else if (location.type === 'template') {
      if (templates.has(location.name)) lenses.push({ range, command: { title: 'Enqueue', command: COMMANDS.enqueueTemplate, arguments: [uri, location.name] } });
    } else if (liveQueues !== undefined) {
      const queue = liveQueues.get(location.name);
      lenses.push({ range, command: { title: queue === undefined ? 'not on the daemon yet' : liveCountsText(queue), command: '' } });
    }
  }
  lenses.push(...workflowLenses(doc, uri, live, now));
  return lenses;
}

/** `Run workflow` on each workflow that read without errors; the last run's counts when known. */
function workflowLenses(doc: JobsDocument, uri: string, live: LiveData, now: number): CodeLens[] {
  const runnable = new Set(doc.parse.workflows.map((w) => w.name));
  const broken = new Set(doc.parse.problems.filter((p) => p.severity === 'error' && p.path[0] === 'workflows').map((p) => String(p.path[1])));
  return workflowKeys(doc).flatMap(({ name, range }) => {
    const out: CodeLens[] = [];
    if (runnable.has(name) && !broken.has(name)) out.push({ range, command: { title: 'Run workflow', command: COMMANDS.runWorkflow, arguments: [uri, name] } });
    const last = live.lastRuns?.get(name);
    if (last !== undefined) out.push({ range, command: { title: `last run ${relativeTime(last.createdAt, now)}${last.state === 'running' ? '' : ` ${last.state}`}: ${runCountsText(last.counts)}`, command: '' } });
    return out;
  });
}
