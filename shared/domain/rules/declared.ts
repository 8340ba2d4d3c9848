/**
 * The rules' words for a jobs file's objects: which parameter names a template may take, and
 * the overlap and missed-run policies in the order messages list them, and a workflow's
 * parameter types and sizes. The objects' types are
 * the protocol's (shared/protocol/projects.ts: they cross the wire in `projects.apply`), so the
 * rules and the jobs file share them without the domain importing shared/jobsfile.
 */
import type { MissedRunPolicy } from '../../protocol/types';
import type { OverlapPolicy, WorkflowParamType } from '../../protocol/projects';

/** `{{name}}` in a template's strings: a letter or "_" first, then letters, digits or "_". */
export const PARAM_NAME = /^(?!__proto__$)[A-Za-z_][A-Za-z0-9_]*$/;

/** What a parameter name allows, in words. */
export const PARAM_NAME_RULE = 'a letter or "_", then letters, digits or "_"';

/** The overlap policies, in the order messages list them. */
export const OVERLAP_POLICIES: readonly OverlapPolicy[] = ['allow', 'skip'];

/** The missed-run policies, in the order messages list them. */
export const MISSED_POLICIES: readonly MissedRunPolicy[] = ['skip', 'runOnce'];

/** The types a workflow parameter may declare. */
export const WORKFLOW_PARAM_TYPES: readonly WorkflowParamType[] = ['string', 'number', 'boolean'];

/** The most steps one workflow may have: a graph a person can read. */
export const MAX_WORKFLOW_STEPS = 200;

/** The most values one matrix variable may list. */
export const MAX_MATRIX_VALUES = 100;

/**
 * The most jobs one step's matrix may make (the product of its lists' lengths): a run's jobs are
 * all created in one transaction.
 */
export const MAX_STEP_INSTANCES = 1000;
