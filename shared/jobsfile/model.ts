/**
 * The jobs file as a daemon needs it: every object named, every duration in milliseconds, every
 * rate a RateLimit, every schedule's job resolved from its template with the parameters
 * substituted. Plain JSON values only (no Map, no URL), so the CLI can send a declaration to the
 * daemon's apply as it is. How the file is written is in `spec.ts` and docs/jobs-as-code.md.
 */
import type { Node } from 'jsonc-parser';
import type { Backoff, JobOptions, JobTemplate, MissedRunPolicy, RateLimit } from '../types';
import type { Span } from './positions';

/** The three kinds of object a jobs file declares, in the order they are applied. */
export type ObjectType = 'queue' | 'template' | 'schedule';

/** The object types in apply order: a schedule needs its template, a template its queue. */
export const OBJECT_TYPES: readonly ObjectType[] = ['queue', 'template', 'schedule'];

/**
 * A queue's settings as the file declares them. A field the file leaves out is not managed:
 * apply leaves the daemon's value as it is (write the default to go back to it).
 */
export interface QueueSettings {
  /** Jobs running at once; null: no limit of the queue's own. */
  concurrency?: number | null;
  /** null: no rate limit. */
  rateLimit?: RateLimit | null;
  /** Attempts a job of the queue gets unless it says otherwise. */
  maxAttempts?: number;
  /** The backoff's fields the file gives; the others keep the queue's value. */
  backoff?: Partial<Backoff>;
  /** Lease length and shell time limit of the queue's jobs. */
  timeoutMs?: number;
  /** null: finished jobs are kept forever. */
  retentionMs?: number | null;
  paused?: boolean;
}

/** A queue declared in the file. */
export interface DeclaredQueue {
  name: string;
  settings: QueueSettings;
}

/** The kinds the daemon runs itself; any other kind is a custom kind run by remote workers. */
export type BuiltinKind = 'shell' | 'http';

/** One `{{name}}` a template can take: its default, and what it is for. */
export interface TemplateParam {
  /** Absent: every use must give a value. */
  default?: string;
  description?: string;
}

export type { JobOptions };

/**
 * A template: a job with `{{name}}` placeholders left in, as written. `payload` is the kind's
 * payload (shell: `{command, cwd?, env?}`, http: `{url, method?, headers?, body?}`, custom: the
 * `payload` field) before substitution.
 */
export interface DeclaredTemplate {
  name: string;
  queue: string;
  kind: string;
  payload: unknown;
  options: JobOptions;
  params: Record<string, TemplateParam>;
  description?: string;
}

/** Whether a schedule fires while its previous job has not finished. */
export type OverlapPolicy = 'allow' | 'skip';

/** The overlap policies, in the order messages list them. */
export const OVERLAP_POLICIES: readonly OverlapPolicy[] = ['allow', 'skip'];

/** The missed-run policies, in the order messages list them. */
export const MISSED_POLICIES: readonly MissedRunPolicy[] = ['skip', 'runOnce'];

/**
 * A schedule with its defaults filled in and its job resolved: what the daemon's
 * `schedules.create` takes, plus the template and parameters it came from and the overlap policy.
 */
export interface DeclaredSchedule {
  name: string;
  cron: string;
  /** IANA zone; "UTC" when the file gives none. */
  timezone: string;
  template: string;
  /** The values the schedule gives (defaults not included). */
  params: Record<string, string>;
  enabled: boolean;
  missedPolicy: MissedRunPolicy;
  overlapPolicy: OverlapPolicy;
  /** The template's queue. */
  queue: string;
  /** The template's job with every parameter substituted. */
  job: JobTemplate;
}

/** A whole jobs file, normalized. Objects keep the file's order. */
export interface Declaration {
  /** The owner name: apply changes or deletes only objects this project created. */
  project: string;
  queues: DeclaredQueue[];
  templates: DeclaredTemplate[];
  schedules: DeclaredSchedule[];
}

/** How bad a problem is: an error blocks apply; a warning does not. */
export type Severity = 'error' | 'warning';

/** Which check found a problem, in the order they run. */
export type Layer = 'syntax' | 'schema' | 'meaning';

/** What a problem is about, for tools to act on (quick fixes, tests) without reading messages. */
export type ProblemCode =
  | 'syntax'
  | 'too-deep'
  | 'unknown-field'
  | 'wrong-type'
  | 'missing-required'
  | 'not-allowed'
  | 'out-of-range'
  | 'invalid-name'
  | 'field-not-for-kind'
  | 'duplicate-key'
  | 'invalid-duration'
  | 'invalid-rate'
  | 'invalid-backoff'
  | 'invalid-url'
  | 'invalid-path'
  | 'invalid-cron'
  | 'cron-never-fires'
  | 'unknown-timezone'
  | 'unknown-template'
  | 'unknown-queue'
  | 'unknown-param'
  | 'undeclared-param'
  | 'missing-param';

/** One thing wrong with a jobs file, at the exact range of the offending key or value. */
export interface Problem {
  severity: Severity;
  layer: Layer;
  code: ProblemCode;
  /** A sentence that names the field and what is allowed there. */
  message: string;
  range: Span;
  /** The JSON path of the field at fault, e.g. ["schedules", "nightly", "cron"]. */
  path: (string | number)[];
  /** What the field accepts, in words. */
  allowed?: string;
  /** The closest valid text (a field name, a zone, a template), for a quick fix. */
  suggestion?: string;
}

/** Where one declared object is: its name (the key) and its body. */
export interface ObjectLocation {
  type: ObjectType;
  name: string;
  key: Span;
  value: Span;
}

/** A use of one object's name by another (a schedule's template, a template's queue). */
export interface Reference {
  from: { type: ObjectType; name: string };
  to: { type: ObjectType; name: string };
  /** The string that names the target, quotes included. */
  range: Span;
}

/** What `parseJobsFile` returns. */
export interface ParseResult {
  /** The declaration, or null when any problem is an error: apply must not run on it. */
  declaration: Declaration | null;
  /**
   * As much of the declaration as could be read, for editors (outline, completion, hover) while
   * the file is being typed. Objects with an error may be missing or lack the faulty field.
   */
  partial: Declaration;
  /** Every problem, in the order of the text. */
  problems: Problem[];
  /** Every declared object's key and body, in the order of the text. */
  locations: ObjectLocation[];
  /** Every reference between objects, for go-to-definition and find-references. */
  references: Reference[];
  /**
   * jsonc-parser's tree of the text (undefined when it has none: empty, or nested too deep), so a
   * language server finds the node under the cursor without parsing again. Its nodes link to
   * their parents: not for JSON.stringify.
   */
  tree: Node | undefined;
}
