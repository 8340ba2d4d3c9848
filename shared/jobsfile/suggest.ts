/**
 * "Did you mean …" for the jobs file: the suggester is shared/domain/present's (the CLI's hints
 * use it too, so a name is taken for a typo by one rule everywhere), and the time zones it
 * picks from when a zone is misspelt.
 */
import { closest } from '../domain/present/suggest';

export { closest };

let zones: readonly string[] | undefined;

/** Every IANA zone the runtime knows, plus "UTC" (which Intl lists under Etc/ names only). */
export function knownTimezones(): readonly string[] {
  zones ??= ['UTC', ...Intl.supportedValuesOf('timeZone')];
  return zones;
}

/**
 * The zone someone most likely means by a city or a misspelt name: "paris" → "Europe/Paris",
 * "new york" → "America/New_York", "Europe/Pari" → "Europe/Paris". Undefined when nothing is close.
 */
export function suggestTimezone(typed: string): string | undefined {
  const t = typed.trim().toLowerCase().replace(/\s+/g, '_');
  if (t === '') return undefined;
  const all = knownTimezones();
  const byCity = all.find((z) => z.toLowerCase().split('/').pop() === t);
  if (byCity !== undefined) return byCity;
  return closest(typed.trim(), all) ?? all.find((z) => (z.toLowerCase().split('/').pop() ?? '').startsWith(t));
}
