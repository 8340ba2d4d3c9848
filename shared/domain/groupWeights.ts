/**
 * A queue's fairness weights (groupWeights) as people type and read them on one line, for the
 * CLI and the extension: `customer:1=3,customer:2=2` (a group key, `=`, a weight from 1 to 1000,
 * comma-separated); `none` or `off` for plain round-robin. The jobs file writes them as a JSON
 * object instead (`"groupWeights": {"customer:1": 3}`).
 */
import { LIMITS } from '../protocol';
import { parsed, refused, type Parsed } from './parsed';

const GROUP = new RegExp(`^[A-Za-z0-9:._@/-]{1,${LIMITS.maxGroupLength}}$`);
const USAGE = 'write group=weight pairs separated by commas, e.g. customer:1=3,customer:2=2 (weights 1 to 1000), or none';

/** Fairness weights by group key, `null` for `none`/`off`, or what is wrong with `text`. */
export function parseGroupWeights(text: string, field = 'groupWeights'): Parsed<Record<string, number> | null> {
  const t = text.trim();
  if (t === 'none' || t === 'off' || t === '') return parsed(null);
  const weights: Record<string, number> = {};
  for (const pair of t.split(',')) {
    const at = pair.lastIndexOf('=');
    const key = pair.slice(0, at).trim();
    const weight = Number(pair.slice(at + 1).trim());
    if (at < 0 || !GROUP.test(key)) return refused(`${field}: "${pair.trim()}" is not group=weight; ${USAGE}`);
    if (!Number.isInteger(weight) || weight < 1 || weight > LIMITS.maxWeight) return refused(`${field}: the weight of ${key} must be a whole number from 1 to ${LIMITS.maxWeight}`);
    weights[key] = weight;
  }
  return parsed(weights);
}

/** The weights as parseGroupWeights reads them, `none` when there are none. */
export function formatGroupWeights(weights: Readonly<Record<string, number>> | null): string {
  if (weights === null || Object.keys(weights).length === 0) return 'none';
  return Object.entries(weights)
    .map(([key, weight]) => `${key}=${weight}`)
    .join(',');
}
