/**
 * The jobs file's model: the declaration as a daemon needs it (its types are the protocol's,
 * shared/protocol/projects.ts, since they cross the wire, and are re-exported here), and what a
 * parse returns: problems, object locations, references. How the file is written is in
 * `spec.ts` and docs/jobs-as-code.md.
 */
import type { Node } from 'jsonc-parser';
import type { JobOptions } from '../protocol/types';
import type { Span } from './positions';
import type {
  ObjectType,
  QueueSettings,
  DeclaredQueue,
  BuiltinKind,
  TemplateParam,
  DeclaredTemplate,
  OverlapPolicy,
  DeclaredSchedule,
  Declaration,
  DeclaredWorkflow,
  DeclaredStep,
  StepNeed,
  WorkflowParam,
  WorkflowParamType,
} from '../protocol/projects';

export type { ObjectType, QueueSettings, DeclaredQueue, BuiltinKind, TemplateParam, DeclaredTemplate, OverlapPolicy, DeclaredSchedule, Declaration };
export type { DeclaredWorkflow, DeclaredStep, StepNeed, WorkflowParam, WorkflowParamType };

/** The object types in apply order: a schedule needs its template, a template its queue. */
export const OBJECT_TYPES: readonly ObjectType[] = ['queue', 'template', 'workflow', 'schedule'];

export { MISSED_POLICIES, OVERLAP_POLICIES } from '../domain/rules/declared';

export type { JobOptions };

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
  | 'invalid-ageing'
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
  | 'missing-param'
  | 'unknown-step'
  | 'workflow-cycle'
  | 'empty-matrix'
  | 'unused-matrix'
  | 'unknown-workflow'
  | 'workflow-params';

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
  /**
   * The workflows as far as they could be read (a step with an error is left out). Not part of
   * the declaration `projects.apply` takes: a run starts from the file's workflow as it is.
   */
  workflows: DeclaredWorkflow[];
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
