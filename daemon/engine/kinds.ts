/**
 * Which kinds a claimer may get: policy the engine decides before the store claims anything.
 */
import type { KindFilter } from '../storage/statements/claim';
import { BUILTIN_KINDS } from './defaults';
import type { ClaimInput } from '../../shared/domain/rules/worker';

/** Which kinds this claimer may get; null when none at all. */
export function kindFilter(input: Pick<ClaimInput, 'kinds' | 'builtinKinds'>): KindFilter | null {
  if (input.builtinKinds !== undefined) {
    // The daemon's own executors: only the built-in kinds they asked for (narrowed by kinds, if given).
    const wanted = input.builtinKinds.filter((k) => input.kinds.length === 0 || input.kinds.includes(k));
    return wanted.length === 0 ? null : { include: wanted };
  }
  if (input.kinds.length === 0) return { exclude: [...BUILTIN_KINDS] };
  const wanted = input.kinds.filter((k) => !BUILTIN_KINDS.includes(k));
  return wanted.length === 0 ? null : { include: wanted };
}
