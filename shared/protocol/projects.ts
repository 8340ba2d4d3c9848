/**
 * What a jobs file declares and what a plan says, as they travel over the wire: the declaration
 * the CLI and the language server send to `projects.apply`, the live objects `projects.state`
 * answers, and the plan both sides compute. Declared here, in the protocol, so the method table
 * can name them; shared/jobsfile/ parses the file into them and computes plans (planChanges).
 */
import type { Backoff, DependencyCondition, JobOptions, JobTemplate, MissedRunPolicy, RateLimit, RetryRule } from './types';

/** The kinds of object a jobs file declares, in the order they are applied. */
export type ObjectType = 'queue' | 'template' | 'workflow' | 'schedule';

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
  /** The retry rule the queue's jobs get unless they bring their own; null: none. */
  retry?: RetryRule | null;
  /** Jobs not started within this long end dead; null: no expiry. */
  expireAfterMs?: number | null;
  /** Most weight running at once per group; null: no limit per group. */
  groupConcurrency?: number | null;
  /** A token bucket per group; null: none. */
  groupRate?: RateLimit | null;
  /** Fairness weights by group key; null: plain round-robin. */
  groupWeights?: Record<string, number> | null;
  /** Priority ageing, "1 per 10m" (see Queue.ageing); null: off. */
  ageing?: string | null;
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

/**
 * A schedule with its defaults filled in and its job resolved: what the daemon's
 * `schedules.create` takes, plus the template and parameters it came from and the overlap policy.
 * A schedule that starts a workflow names it in `workflow` (its `params` are the run's values);
 * its `template` is then empty and its `queue` and `job` are not used.
 */
export interface DeclaredSchedule {
  name: string;
  cron: string;
  /** IANA zone; "UTC" when the file gives none. */
  timezone: string;
  template: string;
  /** The workflow a fire starts a run of, instead of a template's job. */
  workflow?: string;
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
  /** Absent in a declaration from a client that predates workflows: none declared. */
  workflows?: DeclaredWorkflow[];
  schedules: DeclaredSchedule[];
}

/** A queue's managed settings as the daemon has them (every one has a value there). */
export interface QueueState {
  concurrency: number | null;
  rateLimit: RateLimit | null;
  maxAttempts: number;
  backoff: Backoff;
  timeoutMs: number;
  retentionMs: number | null;
  paused: boolean;
  /** Absent from a daemon that predates retry rules. */
  retry?: RetryRule | null;
  expireAfterMs?: number | null;
  groupConcurrency?: number | null;
  groupRate?: RateLimit | null;
  groupWeights?: Record<string, number> | null;
  /** Absent from a daemon that predates priority ageing. */
  ageing?: string | null;
}

/** A template as the daemon records it: the declaration without its name. */
export type TemplateState = Omit<DeclaredTemplate, 'name'>;

/**
 * A schedule as the daemon has it, in the declaration's shape. `template` and `params` are where
 * the job came from; a daemon that has not recorded them leaves them out and they are not compared.
 */
export interface ScheduleState {
  cron: string;
  timezone: string;
  enabled: boolean;
  missedPolicy: MissedRunPolicy;
  overlapPolicy: OverlapPolicy;
  queue: string;
  job: JobTemplate;
  template?: string;
  /** The workflow the schedule starts, when it starts one. */
  workflow?: string;
  params?: Record<string, string>;
}

/** A workflow as the daemon records it: the declaration without its name. */
export type WorkflowState = Omit<DeclaredWorkflow, 'name'>;

/** What the daemon records per object beside the object itself. */
interface Ownership<Applied> {
  name: string;
  /** The project whose file created it; absent for an object made by hand (or on first use). */
  owner?: string;
  /** What that project's last apply declared (the declared value, normalized); absent when none. */
  applied?: Applied;
}

/** One object on the daemon, with its owner and last-applied value: what `planChanges` compares. */
export type LiveObject =
  | (Ownership<QueueSettings> & { type: 'queue'; current: QueueState; /** Jobs the queue holds now. */ jobs?: number })
  | (Ownership<TemplateState> & { type: 'template'; current: TemplateState })
  | (Ownership<WorkflowState> & { type: 'workflow'; current: WorkflowState })
  | (Ownership<ScheduleState> & { type: 'schedule'; current: ScheduleState });

/** Everything a daemon has that a plan needs. */
export interface LiveState {
  objects: LiveObject[];
}

/** One field that differs: `from` the daemon's value `to` the file's (normalized values). */
export interface FieldChange {
  field: string;
  from: unknown;
  to: unknown;
}

/** What apply does to one object. */
export type ChangeAction = 'create' | 'update' | 'delete' | 'unchanged';

/** One line of a plan. */
export interface Change {
  action: ChangeAction;
  type: ObjectType;
  name: string;
  /** For an update: the fields that differ. */
  fields?: FieldChange[];
  /** Something the reader should know: a rename, drift, adoption, a delete that needs --force. */
  note?: string;
  /** On a create: the deleted object of the same body it replaces. */
  renamedFrom?: string;
  /** On a delete: the created object of the same body that replaces it. */
  renamedTo?: string;
  /** On an update: the file takes ownership of a queue no project owned. */
  adopt?: boolean;
  /** On a queue delete: the queue holds jobs, so apply needs --force. */
  needsForce?: boolean;
}

/** An object on the daemon changed by hand since this project last applied it. */
export interface Drift {
  type: ObjectType;
  name: string;
  /** `from` the last-applied value `to` the value now. */
  fields: FieldChange[];
}

/** A declared name the daemon already uses for an object this project does not own. */
export interface Conflict {
  type: ObjectType;
  name: string;
  /** The project that owns it; null when it was made by hand. */
  owner: string | null;
  message: string;
}

/** What apply would do. */
export interface Plan {
  project: string;
  /** In apply order: queues, templates, workflows, schedules; within a type, the file's order, then deletes. */
  changes: Change[];
  /** Objects no project owns, left alone. */
  unmanaged: { type: ObjectType; name: string }[];
  drift: Drift[];
  /** Apply must refuse while there are any. */
  conflicts: Conflict[];
}

/** One step a workflow step waits for, and the outcome it waits for. */
export interface StepNeed {
  step: string;
  /** The outcome waited for: the condition of the dependencies between their jobs. */
  on: DependencyCondition;
}

/** The types a workflow parameter may have; a value is given as text and checked against it. */
export type WorkflowParamType = 'string' | 'number' | 'boolean';

/** One `{{name}}` a workflow takes. */
export interface WorkflowParam extends TemplateParam {
  type: WorkflowParamType;
}

/**
 * One step of a workflow, as a job ready to substitute: a template step has its template's job
 * with the template's own parameters already filled in (from the step's `params`, the workflow's
 * parameters of the same name, or the template's defaults), so the placeholders left are the
 * workflow's parameters and the step's matrix variables.
 */
export interface DeclaredStep {
  name: string;
  queue: string;
  kind: string;
  payload: unknown;
  options: JobOptions;
  /** The steps it waits for, in the file's order. */
  needs: StepNeed[];
  /** Variables and their values: one job per combination (absent: one job). */
  matrix?: Record<string, string[]>;
  /** The template it was made from, if any. */
  template?: string;
  description?: string;
}

/** A workflow: steps and what each waits for, started as one run. */
export interface DeclaredWorkflow {
  name: string;
  params: Record<string, WorkflowParam>;
  /** In the file's order. */
  steps: DeclaredStep[];
  description?: string;
}
