/** Jobs as an answer sends them when the call named `fields`: the id and those fields of each. */
export function pickFields<T extends { id: string }>(job: T, fields: readonly (keyof T & string)[]): T {
  const picked: Record<string, unknown> = { id: job.id };
  for (const field of fields) if (job[field] !== undefined) picked[field] = job[field];
  // The answer's type stays the whole job's: the caller who named `fields` reads only those.
  return picked as unknown as T;
}
