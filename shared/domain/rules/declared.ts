/**
 * The jobs file's objects as a daemon receives them in `project.apply` (what `parseJobsFile`
 * makes of the file, and what `declaration.ts` checks again): every object named, every duration
 * in milliseconds, every rate a RateLimit, every schedule's job resolved from its template. Plain
 * JSON values only, so a declaration crosses the wire as it is. The types are here, beside the
 * rules that check them, so that the rules need nothing from shared/jobsfile.
 */
import type { Backoff, JobOptions, JobTemplate, MissedRunPolicy, RateLimit } from '../../types';

/** `{{name}}` in a template's strings: a letter or "_" first, then letters, digits or "_". */
export const PARAM_NAME = /^(?!__proto__$)[A-Za-z_][A-Za-z0-9_]*$/;

/** The rule of PARAM_NAME in words, for messages and the schema. */
export const PARAM_NAME_RULE = 'a letter or "_", then letters, digits or "_"';

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

/** One `{{name}}` a template can take: its default, and what it is for. */
export interface TemplateParam {
  /** Absent: every use must give a value. */
  default?: string;
  description?: string;
}

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

/** A template as the daemon records it: the declaration without its name. */
export type TemplateState = Omit<DeclaredTemplate, 'name'>;
