/**
 * The engine validates every field of the params it is given (types, unknown fields, ranges,
 * sizes) before touching the database, and its methods are typed with what a valid call looks
 * like. Raw wire params reach it through this one function, which names that hand-over instead
 * of scattering casts: the value is not checked here, the engine checks it.
 */
export function unvalidated<T>(params: unknown): T {
  return (params ?? {}) as T;
}
