/**
 * What the parsers of `shared/domain` return: the value, or a message that says what is wrong
 * and what is allowed. Messages are values, not exceptions, so that each caller puts them where
 * its user looks: the CLI in its one-line error, the extension in an input box's validation,
 * the jobs file in a diagnostic at the value's position.
 */
export type Parsed<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly message: string };

/** A successful parse. */
export function parsed<T>(value: T): Parsed<T> {
  return { ok: true, value };
}

/** A refusal; `message` names what is allowed, as a sentence fragment without a final stop. */
export function refused<T>(message: string): Parsed<T> {
  return { ok: false, message };
}
