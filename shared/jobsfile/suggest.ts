/**
 * "Did you mean …" for the jobs file: the suggester is shared/domain/present's (the CLI's hints
 * use it too, so a name is taken for a typo by one rule everywhere), and the time zones it
 * picks from when a zone is misspelt.
 */
export { closest } from '../domain/present/suggest';

let zones: readonly string[] | undefined;

/** Every IANA zone the runtime knows, plus "UTC" (which Intl lists under Etc/ names only). */
export function knownTimezones(): readonly string[] {
  zones ??= ['UTC', ...Intl.supportedValuesOf('timeZone')];
  return zones;
}
