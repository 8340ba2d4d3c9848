/**
 * The rules' words for a jobs file's objects: which parameter names a template may take, and
 * the overlap and missed-run policies in the order messages list them. The objects' types are
 * the protocol's (shared/protocol/projects.ts: they cross the wire in `projects.apply`), so the
 * rules and the jobs file share them without the domain importing shared/jobsfile.
 */
import type { MissedRunPolicy } from '../../protocol/types';
import type { OverlapPolicy } from '../../protocol/projects';

/** `{{name}}` in a template's strings: a letter or "_" first, then letters, digits or "_". */
export const PARAM_NAME = /^(?!__proto__$)[A-Za-z_][A-Za-z0-9_]*$/;

/** What a parameter name allows, in words. */
export const PARAM_NAME_RULE = 'a letter or "_", then letters, digits or "_"';

/** The overlap policies, in the order messages list them. */
export const OVERLAP_POLICIES: readonly OverlapPolicy[] = ['allow', 'skip'];

/** The missed-run policies, in the order messages list them. */
export const MISSED_POLICIES: readonly MissedRunPolicy[] = ['skip', 'runOnce'];
