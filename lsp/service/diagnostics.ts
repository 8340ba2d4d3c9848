/**
 * Diagnostics in layers, each at the exact range of the offending key or value: the file's own
 * (`parseJobsFile`: JSON syntax, schema, meaning), then live ones when a daemon answered — a
 * template's queue that exists only on the daemon, objects changed by hand since the last apply,
 * names the daemon uses for objects this project does not own. Without live data the live layer
 * is skipped: nothing is said about the daemon.
 */
import { DiagnosticSeverity, type Diagnostic } from 'vscode-languageserver-types';
import { formatFieldValue, planChanges, type Problem, type ProblemCode } from '../../shared/jobsfile';
import { rangeOf, type JobsDocument } from './document';
import type { LiveData } from './live';

/** What the diagnostics say in `source`, so an editor shows where they come from. */
export const SOURCE = 'spool';

/** What a diagnostic carries for quick fixes (`Diagnostic.data`). */
export interface DiagnosticData {
  code: ProblemCode | 'queue-on-daemon-only' | 'drift' | 'conflict';
  /** The closest valid text, for "change to …". */
  suggestion?: string;
  /** The name a reference points at (unknown template or queue), for "create …". */
  name?: string;
}

/** Every diagnostic of the document, the file's own first, then the live ones. */
export function diagnostics(doc: JobsDocument, live: LiveData): Diagnostic[] {
  const out: Diagnostic[] = [];
  const liveQueues = live.queues === undefined ? undefined : new Map(live.queues.map((q) => [q.name, q]));
  for (const problem of doc.parse.problems) {
    if (problem.code === 'unknown-queue' && liveQueues !== undefined) {
      const name = referencedName(doc, problem);
      const queue = name === undefined ? undefined : liveQueues.get(name);
      if (queue !== undefined) {
        // The daemon has the queue: the file's warning ("made on first use") is not the whole
        // truth; say what the daemon knows instead.
        const jobs = Object.values(queue.counts).reduce((a, b) => a + b, 0);
        out.push({
          range: rangeOf(problem.range),
          severity: DiagnosticSeverity.Information,
          source: SOURCE,
          code: 'queue-on-daemon-only',
          message: `The queue "${queue.name}" exists only on the daemon (${jobs} job${jobs === 1 ? '' : 's'}): this file does not manage its settings. Declare it under "queues" to manage them here.`,
          data: { code: 'queue-on-daemon-only', name: queue.name } satisfies DiagnosticData,
        });
        continue;
      }
    }
    out.push(fromProblem(doc, problem));
  }
  if (live.objects !== undefined) out.push(...stateDiagnostics(doc, live));
  return out;
}

/** A parse problem as a diagnostic. */
function fromProblem(doc: JobsDocument, problem: Problem): Diagnostic {
  const data: DiagnosticData = { code: problem.code };
  if (problem.suggestion !== undefined) data.suggestion = problem.suggestion;
  if (problem.code === 'unknown-template' || problem.code === 'unknown-queue') {
    const name = referencedName(doc, problem);
    if (name !== undefined) data.name = name;
  }
  return {
    range: rangeOf(problem.range),
    severity: problem.severity === 'error' ? DiagnosticSeverity.Error : DiagnosticSeverity.Warning,
    source: SOURCE,
    code: problem.code,
    // The message already names the field and what it takes, as the CLI prints it.
    message: problem.message,
    data,
  };
}

/** The name an unknown-template or unknown-queue problem is about: the reference at its range. */
function referencedName(doc: JobsDocument, problem: Problem): string | undefined {
  return doc.parse.references.find((r) => r.range.offset === problem.range.offset)?.to.name;
}

/** Drift and conflicts, from the plan of the file against the daemon's objects. */
function stateDiagnostics(doc: JobsDocument, live: LiveData): Diagnostic[] {
  const out: Diagnostic[] = [];
  const declaration = doc.parse.partial;
  if (declaration.project === '') return out;
  const plan = planChanges(declaration, { objects: [...(live.objects ?? [])] });
  const keyOf = (type: string, name: string) => doc.parse.locations.find((l) => l.type === type && l.name === name)?.key;
  for (const drift of plan.drift) {
    const key = keyOf(drift.type, drift.name);
    if (key === undefined) continue;
    const fields = drift.fields.map((f) => `${f.field}: ${formatFieldValue(f.field, f.from)} → ${formatFieldValue(f.field, f.to)}`).join(', ');
    out.push({
      range: rangeOf(key),
      severity: DiagnosticSeverity.Warning,
      source: SOURCE,
      code: 'drift',
      message: `The ${drift.type} "${drift.name}" was changed on the daemon since the last apply (${fields}); apply puts the file's value back.`,
      data: { code: 'drift', name: drift.name } satisfies DiagnosticData,
    });
  }
  for (const conflict of plan.conflicts) {
    const key = keyOf(conflict.type, conflict.name);
    if (key === undefined) continue;
    out.push({ range: rangeOf(key), severity: DiagnosticSeverity.Warning, source: SOURCE, code: 'conflict', message: conflict.message, data: { code: 'conflict', name: conflict.name } satisfies DiagnosticData });
  }
  return out;
}
