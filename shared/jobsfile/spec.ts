/**
 * The jobs file's fields, declared once: their types, limits and descriptions. The parser's
 * checks walk this table, the JSON Schema (`schema.ts` → schema/spool.schema.json) is generated
 * from it, and the language server reads its descriptions for completion and hover, so a field
 * added here is known to all three (a test fails when the committed schema is stale).
 *
 * The limits are not restated here: each comes from the protocol's LIMITS or from the domain's
 * rules (shared/domain/rules/), the ones the daemon enforces when the file is applied, so that a
 * file the editor accepts is one the daemon accepts.
 */
import { BACKOFF_STRATEGIES } from '../domain/backoff';
import { MAX_MATRIX_VALUES, MAX_WORKFLOW_STEPS, MISSED_POLICIES, OVERLAP_POLICIES, PARAM_NAME, PARAM_NAME_RULE, WORKFLOW_PARAM_TYPES } from '../domain/rules/declared';
import { DEFAULT_TIMEZONE, HEADER_NAME, HEADER_NAME_RULE, HTTP_METHODS, MAX_CONCURRENCY, MAX_DESCRIPTION_LENGTH, MAX_PAYLOAD_TEXT } from '../domain/rules/limits';
import { NAME_RULE } from '../domain/validate';
import { GROUP_RULE } from '../domain/rules/jobs';
import { LIMITS, NAME_PATTERN } from '../protocol';
import { DEPENDENCY_CONDITIONS, UNIQUE_WHILE } from '../protocol/types';
import { MAX_UNIQUE_BY, UNIQUE_BY_RULE, UNIQUE_DURATION } from '../domain/rules/unique';

interface Described {
  /** What the field means, shown in completion, hover and the schema. */
  description: string;
}

/** A field of a given shape; `kind` says which, the rest are its limits. */
export type FieldSpec =
  | (Described & { kind: 'string'; minLength?: number; maxLength?: number; enum?: readonly string[]; enumDescriptions?: readonly string[]; examples?: readonly string[] })
  /** A queue, kind or object name (NAME_PATTERN); `ref` when it names another object of the file. */
  | (Described & { kind: 'name'; ref?: 'queue' | 'template' | 'workflow'; examples?: readonly string[] })
  | (Described & { kind: 'duration'; nullable?: boolean; minMs?: number; maxMs: number; examples: readonly string[] })
  | (Described & { kind: 'rate'; examples: readonly string[] })
  /** Priority ageing, "1 per 10m" (../domain/ageing.ts); "off" or null for none. */
  | (Described & { kind: 'ageing'; examples: readonly string[] })
  | (Described & { kind: 'backoff'; examples: readonly string[] })
  | (Described & { kind: 'cron'; examples: readonly string[] })
  | (Described & { kind: 'timezone'; examples: readonly string[] })
  | (Described & { kind: 'integer'; min: number; max: number; nullable?: boolean; default?: number })
  | (Described & { kind: 'boolean'; default?: boolean })
  | (Described & { kind: 'json' })
  | (Described & { kind: 'stringList'; maxItems: number; maxLength: number })
  | (Described & { kind: 'map'; keys: KeyRule; values: FieldSpec })
  /** A workflow step's `needs`: step names, or `{ step, on }` objects. */
  | (Described & { kind: 'needs' })
  | ObjectSpec;

/** Which kinds of template a field belongs to; absent: every kind. */
export type KindGroup = 'shell' | 'http' | 'custom';

/** An object with known fields; anything else in it is an unknown field. */
export interface ObjectSpec extends Described {
  kind: 'object';
  fields: Readonly<Record<string, FieldSpec & { kinds?: readonly KindGroup[] }>>;
  required?: readonly string[];
}

/** What the keys of a map may be. */
export interface KeyRule {
  pattern: RegExp;
  /** The rule in words, for messages and the schema. */
  allowed: string;
}

export { PARAM_NAME };

const OBJECT_NAME: KeyRule = {
  pattern: NAME_PATTERN,
  allowed: NAME_RULE,
};
const PARAM_KEY: KeyRule = { pattern: PARAM_NAME, allowed: PARAM_NAME_RULE };
// "__proto__" is refused as a key: as a property of the objects the parser builds it would
// replace their prototype instead of adding an entry.
const ENV_KEY: KeyRule = { pattern: /^(?!__proto__$)[^=\u0000]+$/, allowed: 'a variable name without "=" or NUL' };
const HEADER_KEY: KeyRule = { pattern: new RegExp(`^(?!__proto__$)${HEADER_NAME.source.slice(1)}`), allowed: `a header name: ${HEADER_NAME_RULE}` };

const MAX_DURATION = LIMITS.maxDurationMs;

const BACKOFF: FieldSpec = {
  kind: 'backoff',
  description:
    'How the wait before a retry grows: strategy[:base[:cap[:jitter]]], the strategy one of ' +
    `${BACKOFF_STRATEGIES.join(', ')}, base and cap durations, jitter a fraction from 0 to 1 (e.g. "exponential:1s:5m" waits 1s, 2s, 4s… up to 5 minutes). Parts left out keep the queue's default.`,
  examples: ['exponential:1s:5m', 'exponential:2s:1h:0.3', 'linear:10s:2m', 'fixed:30s'],
};

/** A group key, as groupWeights names one. */
const GROUP_KEY: KeyRule = { pattern: new RegExp(`^[A-Za-z0-9:._@/-]{1,${LIMITS.maxGroupLength}}$`), allowed: GROUP_RULE };

/** A queue's settings under `queues.<name>`. */
export const QUEUE_SPEC: ObjectSpec = {
  kind: 'object',
  description: 'A queue and its settings. A setting left out is not managed by the file: apply leaves the daemon\'s value as it is.',
  fields: {
    concurrency: {
      kind: 'integer',
      min: 1,
      max: MAX_CONCURRENCY,
      nullable: true,
      description: 'How many of the queue\'s jobs run at once; null for no limit of the queue\'s own.',
    },
    rateLimit: {
      kind: 'rate',
      description: 'How many jobs may start per unit of time: "10/s", "600/m", "100/h", with an optional burst ("10/s burst 20"); "off" for no limit.',
      examples: ['10/s', '600/m', '10/s burst 20', 'off'],
    },
    attempts: {
      kind: 'integer',
      min: 1,
      max: LIMITS.maxAttempts,
      description: `How many times a job of the queue is tried before it is dead (1 to ${LIMITS.maxAttempts}), unless the job says otherwise.`,
    },
    backoff: BACKOFF,
    timeout: {
      kind: 'duration',
      minMs: LIMITS.minTimeoutMs,
      maxMs: LIMITS.maxTimeoutMs,
      description: 'How long a job may run without a sign of life before its lease expires (a shell job is stopped then): a duration from 100ms to 7d.',
      examples: ['30s', '5m', '1h'],
    },
    retention: {
      kind: 'duration',
      nullable: true,
      maxMs: MAX_DURATION,
      description: 'How long finished jobs (completed, dead, cancelled) are kept before cleanup deletes them: a duration, or null to keep them forever.',
      examples: ['1d', '7d', '30d'],
    },
    paused: { kind: 'boolean', description: 'When true, the queue starts no job until resumed; jobs can still be enqueued.' },
    groupConcurrency: {
      kind: 'integer',
      min: 1,
      max: MAX_CONCURRENCY,
      nullable: true,
      description: 'How many jobs of one group (a job\'s "group") run at once, counted by weight like concurrency; null for no limit per group.',
    },
    groupRate: {
      kind: 'rate',
      description: 'How many jobs of one group may start per unit of time, in the syntax of rateLimit ("5/s", "10/s burst 20"); "off" for no limit per group.',
      examples: ['5/s', '60/m', 'off'],
    },
    groupWeights: {
      kind: 'map',
      keys: GROUP_KEY,
      values: { kind: 'integer', min: 1, max: LIMITS.maxWeight, description: 'The group\'s weight: its turns for each turn of a group of weight 1.' },
      description: 'Fair turns between groups: a group of weight 3 gets three turns for each turn of any group not named here. Without it, groups take plain turns.',
    },
    retry: {
      kind: 'json',
      description:
        'Which failures of the queue\'s jobs are retried, unless a job brings its own rule: { "on": {…}, "never": {…} }, each with "exitCodes", "httpStatus" and "errors" (globs over the error\'s first line). "never" beats "on"; with "on" given, any other failure is final. null for no rule.',
    },
    expireAfter: {
      kind: 'duration',
      nullable: true,
      minMs: 1,
      maxMs: MAX_DURATION,
      description: 'A job of the queue not started within this long of its enqueue ends dead ("expired before it started"), unless it sets its own; null for no expiry.',
      examples: ['10m', '1h', '1d'],
    },
    ageing: {
      kind: 'ageing',
      description:
        'Priority ageing, so that low-priority jobs are not starved: "1 per 10m" makes a waiting job count one priority higher for every 10 minutes it has waited since it became due (its own priority stays as set). "off" or null for none.',
      examples: ['1 per 10m', '5 per 1h', 'off'],
    },
  },
};

/** An http job's fields: a template's (with "kind": "http"), and a step's "http" object. */
const HTTP_FIELDS = {
  url: { kind: 'string', minLength: 1, maxLength: MAX_PAYLOAD_TEXT, description: 'http: the absolute http:// or https:// URL to request. Required for http jobs.' },
  method: { kind: 'string', enum: HTTP_METHODS, description: 'http: the request method; GET when left out.' },
  headers: {
    kind: 'map',
    keys: HEADER_KEY,
    values: { kind: 'string', maxLength: MAX_PAYLOAD_TEXT, description: 'The header\'s value.' },
    description: 'http: request headers.',
  },
  body: { kind: 'json', description: 'http: the request body; a string is sent as it is, any other JSON value as JSON (with a JSON content-type unless a header sets one).' },
} as const satisfies Record<string, FieldSpec>;

/** A template under `templates.<name>`: one job, with `{{param}}` placeholders. */
export const TEMPLATE_SPEC: ObjectSpec = {
  kind: 'object',
  description: 'A job to enqueue by name (from a schedule, `spool run`, or a code lens), with {{param}} placeholders in its strings.',
  required: ['queue', 'kind'],
  fields: {
    description: { kind: 'string', maxLength: MAX_DESCRIPTION_LENGTH, description: 'What the job does, for the people reading the file.' },
    queue: { kind: 'name', ref: 'queue', description: 'The queue the job goes to.' },
    kind: {
      kind: 'name',
      description: 'What runs the job: "shell" (a command run by the daemon), "http" (a request sent by the daemon), or any other name for a custom kind run by remote workers.',
      examples: ['shell', 'http'],
    },
    command: { kind: 'string', minLength: 1, maxLength: MAX_PAYLOAD_TEXT, kinds: ['shell'], description: 'shell: the command /bin/sh runs. Required for shell jobs.' },
    cwd: { kind: 'string', minLength: 1, maxLength: MAX_PAYLOAD_TEXT, kinds: ['shell'], description: 'shell: the absolute path of the folder the command runs in.' },
    env: {
      kind: 'map',
      keys: ENV_KEY,
      kinds: ['shell'],
      values: { kind: 'string', maxLength: MAX_PAYLOAD_TEXT, description: 'The variable\'s value.' },
      description: 'shell: environment variables added to the daemon\'s for the command.',
    },
    url: { ...HTTP_FIELDS.url, kinds: ['http'] },
    method: { ...HTTP_FIELDS.method, kinds: ['http'] },
    headers: { ...HTTP_FIELDS.headers, kinds: ['http'] },
    body: { ...HTTP_FIELDS.body, kinds: ['http'] },
    payload: { kind: 'json', kinds: ['custom'], description: 'Custom kinds: the JSON value the worker receives. Required for custom kinds (null is a value).' },
    priority: {
      kind: 'integer',
      min: LIMITS.minPriority,
      max: LIMITS.maxPriority,
      description: `Higher runs first, from ${LIMITS.minPriority} to ${LIMITS.maxPriority}; 0 when left out.`,
    },
    attempts: { kind: 'integer', min: 1, max: LIMITS.maxAttempts, description: 'How many times the job is tried before it is dead; the queue\'s default when left out.' },
    backoff: BACKOFF,
    timeout: {
      kind: 'duration',
      minMs: LIMITS.minTimeoutMs,
      maxMs: LIMITS.maxTimeoutMs,
      description: 'How long the job may run without a sign of life (a shell job is stopped then): 100ms to 7d; the queue\'s default when left out.',
      examples: ['30s', '5m', '1h'],
    },
    group: {
      kind: 'string',
      minLength: 1,
      maxLength: LIMITS.maxGroupLength,
      description: `The job's group, with {{param}} placeholders, e.g. "customer:{{customer}}": its queue's groupConcurrency and groupRate hold per group, and claims take groups in turn. ${GROUP_RULE} once filled in.`,
      examples: ['customer:{{customer}}'],
    },
    tags: {
      kind: 'stringList',
      maxItems: LIMITS.maxTags,
      maxLength: LIMITS.maxTagLength,
      description: `Labels to find the job by (up to ${LIMITS.maxTags}, each up to ${LIMITS.maxTagLength} characters).`,
    },
    unique: {
      kind: 'object',
      description:
        'Enqueueing a job equal to one enqueued within "for" returns that job instead of adding another. With "debounce" or "throttle", give only "by" here: which jobs count as equal.',
      fields: {
        for: {
          kind: 'duration',
          minMs: UNIQUE_DURATION.minMs,
          maxMs: UNIQUE_DURATION.maxMs,
          description: 'The window: for this long after a job is enqueued, an equal one is not enqueued again. Required unless "debounce" or "throttle" is given.',
          examples: ['10m', '1h', '1d'],
        },
        by: {
          kind: 'stringList',
          maxItems: MAX_UNIQUE_BY,
          maxLength: LIMITS.maxNameLength,
          description: `What makes two jobs equal, each one of ${UNIQUE_BY_RULE}. Default: queue, kind and payload (with debounce or throttle: queue and kind).`,
        },
        while: {
          kind: 'string',
          enum: UNIQUE_WHILE,
          enumDescriptions: ['Only until the existing job starts.', 'Until the existing job ends (completed, dead or cancelled).', 'For the whole window, whatever the existing job became (the default).'],
          description: 'How long the existing job holds its place within the window: "waiting", "active" or "any" (the default).',
        },
      },
    },
    retry: {
      kind: 'json',
      description:
        'Which failures of the job are retried, replacing its queue\'s rule: { "on": {…}, "never": {…} }, each with "exitCodes", "httpStatus" and "errors" (globs over the error\'s first line). null for no rule, whatever the queue\'s.',
    },
    expireAfter: {
      kind: 'duration',
      minMs: 1,
      maxMs: MAX_DURATION,
      description: 'The job ends dead ("expired before it started") if not started within this long of its enqueue; its queue\'s expireAfter when left out.',
      examples: ['10m', '1h', '1d'],
    },
    deadline: {
      kind: 'duration',
      minMs: 1,
      maxMs: MAX_DURATION,
      description: 'No retry is made after this long from the job\'s enqueue: a failure then is final.',
      examples: ['1h', '6h', '1d'],
    },
    debounce: {
      kind: 'duration',
      minMs: UNIQUE_DURATION.minMs,
      maxMs: UNIQUE_DURATION.maxMs,
      description: 'If an equal job (see unique.by; default queue and kind) is still queued, replace its payload and move its start to now + this instead of adding a job: a burst runs once, after the last.',
      examples: ['5s', '30s', '1m'],
    },
    throttle: {
      kind: 'duration',
      minMs: UNIQUE_DURATION.minMs,
      maxMs: UNIQUE_DURATION.maxMs,
      description: 'Equal jobs (see unique.by; default queue and kind) start at least this far apart: each waits until the previous one\'s start + this.',
      examples: ['1m', '10m', '1h'],
    },
    params: {
      kind: 'map',
      keys: PARAM_KEY,
      description: 'The {{name}} placeholders the template\'s strings use, each with an optional default. A placeholder without a default needs a value from every schedule or run.',
      values: {
        kind: 'object',
        description: 'One parameter.',
        fields: {
          default: { kind: 'string', maxLength: MAX_PAYLOAD_TEXT, description: 'The value used when a schedule or run gives none.' },
          description: { kind: 'string', maxLength: MAX_DESCRIPTION_LENGTH, description: 'What the parameter is for.' },
        },
      },
    },
  },
};

/** Values for a template's `{{name}}` placeholders (a schedule's, a workflow step's). */
const PARAM_VALUES = (description: string): FieldSpec => ({
  kind: 'map',
  keys: PARAM_KEY,
  values: { kind: 'string', maxLength: MAX_PAYLOAD_TEXT, description: 'The parameter\'s value.' },
  description,
});

/** A schedule under `schedules.<name>`. */
export const SCHEDULE_SPEC: ObjectSpec = {
  kind: 'object',
  description: 'A template enqueued on a cron schedule, or a workflow started on one ("template" or "workflow", not both).',
  required: ['cron'],
  fields: {
    cron: {
      kind: 'cron',
      description: 'When it fires: five fields (minute hour day-of-month month day-of-week), six with seconds first, or a macro such as @daily. Read in the schedule\'s timezone, following Debian cron across daylight-saving changes.',
      examples: ['0 3 * * *', '*/15 * * * 1-5', '@hourly'],
    },
    timezone: {
      kind: 'timezone',
      description: `The IANA time zone the cron is read in; "${DEFAULT_TIMEZONE}" when left out.`,
      examples: ['UTC', 'Europe/Paris', 'America/New_York'],
    },
    template: { kind: 'name', ref: 'template', description: 'The template it enqueues, by name. Give this or "workflow".' },
    workflow: { kind: 'name', ref: 'workflow', description: 'The workflow it starts a run of, by name, instead of enqueueing a template. Give this or "template".' },
    params: PARAM_VALUES('Values for the template\'s {{name}} placeholders (or the workflow\'s parameters); the defaults fill the rest.'),
    enabled: { kind: 'boolean', default: true, description: 'When false, the schedule enqueues nothing; true when left out.' },
    missedPolicy: {
      kind: 'string',
      enum: MISSED_POLICIES,
      enumDescriptions: ['Fire times missed while no daemon ran are dropped.', 'Fire times missed while no daemon ran are run once, together, when the daemon is back.'],
      description: 'What to do with fire times missed while no daemon ran: "skip" (the default) or "runOnce".',
    },
    overlapPolicy: {
      kind: 'string',
      enum: OVERLAP_POLICIES,
      enumDescriptions: ['Fire every time, even while the previous job (or run) has not finished.', 'Fire no new job while the previous one is still queued, retrying or running (no new run while the previous run is running).'],
      description: 'Whether it fires while its previous job is unfinished (or, for a workflow, its previous run is running): "allow" (the default) or "skip".',
    },
  },
};

/**
 * The fields of a template that make its job, for inline steps: all but its parameters, and
 * but unique, debounce and throttle (a workflow run's jobs are made together, once), and the retry
 * rule, expiry and deadline, which a step does not take yet.
 */
const { params: _templateParams, unique: _unique, debounce: _debounce, throttle: _throttle, retry: _retry, expireAfter: _expireAfter, deadline: _deadline, ...JOB_FIELDS } = TEMPLATE_SPEC.fields;

/** A step's `needs` objects: a step name and the outcome waited for. */
export const NEED_SPEC: ObjectSpec = {
  kind: 'object',
  description: 'A step this one waits for, and the outcome it waits for.',
  required: ['step'],
  fields: {
    step: { kind: 'name', description: 'The name of a step of the same workflow.' },
    on: {
      kind: 'string',
      enum: DEPENDENCY_CONDITIONS,
      enumDescriptions: [
        'Start when that step succeeded; if it fails or is cancelled, this step is cancelled.',
        'Start only when that step failed (a step that reports or repairs a failure); if it succeeds, this step is cancelled.',
        'Start when that step ended, whatever the outcome, cancelled included (a cleanup).',
      ],
      description: `The outcome waited for: ${DEPENDENCY_CONDITIONS.join(', ')}; "succeeded" when left out.`,
    },
  },
};

/** A step under `workflows.<name>.steps.<step>`: a template, or an inline job. */
export const STEP_SPEC: ObjectSpec = {
  kind: 'object',
  description:
    'One step of the workflow: a template by name ("template"), or a job written like a template ("queue" with "kind" and its fields), where "shell": "<command>" and "http": { "url": … } are short for the two built-in kinds. {{name}} placeholders take the workflow\'s parameters and the step\'s matrix variables.',
  fields: {
    template: { kind: 'name', ref: 'template', description: 'The template whose job the step runs. Its parameters take the step\'s "params", else the workflow\'s parameters of the same name, else their defaults.' },
    params: PARAM_VALUES('Values for the template\'s {{name}} placeholders; they may use the workflow\'s parameters and the step\'s matrix variables.'),
    ...JOB_FIELDS,
    queue: { kind: 'name', ref: 'queue', description: 'The queue the step\'s job goes to (an inline step; a template step uses its template\'s).' },
    kind: { kind: 'name', examples: ['shell', 'http'], description: 'What runs the step\'s job: "shell", "http", or a custom kind run by remote workers. Left out with "shell" or "http" given.' },
    shell: { kind: 'string', minLength: 1, maxLength: MAX_PAYLOAD_TEXT, kinds: ['shell'], description: 'Short for "kind": "shell" with this "command": the command /bin/sh runs.' },
    http: {
      kind: 'object',
      kinds: ['http'],
      description: 'Short for "kind": "http" with these fields: the request the daemon sends.',
      required: ['url'],
      fields: HTTP_FIELDS,
    },
    needs: {
      kind: 'needs',
      description: 'The steps this one waits for: a name waits for that step to succeed; { "step": name, "on": "failed" | "finished" } waits for another outcome. A step with a matrix is waited for in all its jobs.',
    },
    matrix: {
      kind: 'map',
      keys: PARAM_KEY,
      values: { kind: 'stringList', maxItems: MAX_MATRIX_VALUES, maxLength: MAX_PAYLOAD_TEXT, description: 'The values the variable takes, one job each.' },
      description: 'Runs the step once per combination of the variables\' values, each a {{name}} placeholder of the step; the steps that need it wait for all of them.',
    },
  },
};

/** A workflow under `workflows.<name>`. */
export const WORKFLOW_SPEC: ObjectSpec = {
  kind: 'object',
  description: 'Steps that wait for each other, started together as one run (`spool run <workflow>`).',
  required: ['steps'],
  fields: {
    description: { kind: 'string', maxLength: MAX_DESCRIPTION_LENGTH, description: 'What the workflow does, for the people reading the file.' },
    params: {
      kind: 'map',
      keys: PARAM_KEY,
      description: 'The {{name}} placeholders the steps use, each given when a run starts (or by its default).',
      values: {
        kind: 'object',
        description: 'One parameter.',
        fields: {
          type: { kind: 'string', enum: WORKFLOW_PARAM_TYPES, description: `What the value must be: ${WORKFLOW_PARAM_TYPES.join(', ')}; "string" when left out.` },
          default: { kind: 'string', maxLength: MAX_PAYLOAD_TEXT, description: 'The value used when a run gives none.' },
          description: { kind: 'string', maxLength: MAX_DESCRIPTION_LENGTH, description: 'What the parameter is for.' },
        },
      },
    },
    steps: { kind: 'map', keys: OBJECT_NAME, values: STEP_SPEC, description: `The steps by name (up to ${MAX_WORKFLOW_STEPS}), each a job that may wait for others.` },
  },
};

/** The whole file. */
export const FILE_SPEC: ObjectSpec = {
  kind: 'object',
  description: 'Spool jobs as code: the queues, job templates, schedules and workflows of one project, applied with `spool apply`.',
  required: ['project'],
  fields: {
    $schema: { kind: 'string', description: 'The JSON Schema this file follows, for editors that do not know Spool (the VS Code extension needs none: its language server checks the file).' },
    project: {
      kind: 'name',
      description: 'The owner name. Apply only ever changes or deletes objects that this project\'s file created; objects made by hand or by another project are left alone.',
    },
    queues: { kind: 'map', keys: OBJECT_NAME, values: QUEUE_SPEC, description: 'Queues by name, with their settings.' },
    templates: { kind: 'map', keys: OBJECT_NAME, values: TEMPLATE_SPEC, description: 'Job templates by name.' },
    schedules: { kind: 'map', keys: OBJECT_NAME, values: SCHEDULE_SPEC, description: 'Schedules by name.' },
    workflows: { kind: 'map', keys: OBJECT_NAME, values: WORKFLOW_SPEC, description: 'Workflows by name: steps that wait for each other, run together.' },
  },
};

/**
 * The spec of the field at a JSON path of the file (`["schedules", "nightly", "cron"]`), or
 * undefined where the file has no such field: what the language server documents on hover and
 * offers in completion. A map's entries all share its values' spec, whatever their key.
 */
export function fieldAt(path: readonly (string | number)[]): FieldSpec | undefined {
  let spec: FieldSpec = FILE_SPEC;
  for (const segment of path) {
    if (spec.kind === 'map') spec = spec.values;
    // A `needs` entry, written as an object, is a NEED_SPEC (as a bare name, a string of it).
    else if (spec.kind === 'needs' && typeof segment === 'number') spec = NEED_SPEC;
    else if (spec.kind === 'object' && typeof segment === 'string' && Object.hasOwn(spec.fields, segment)) {
      const next: FieldSpec | undefined = spec.fields[segment];
      if (next === undefined) return undefined;
      spec = next;
    } else return undefined;
  }
  return spec;
}
