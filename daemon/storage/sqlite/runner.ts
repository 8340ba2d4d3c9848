/**
 * How the SQLite store runs a job operation (see ../statements/index.ts): synchronously, each
 * yielded statement called on the spot and its result handed back, so the whole operation runs
 * inside the caller's transaction with no await (better-sqlite3 is synchronous; group commit
 * needs every batched call inside one transaction).
 */
import { resume, type Op, type Statements } from '../statements';

type AnyStatement = (...args: readonly unknown[]) => unknown;

/**
 * Drives `op` to its end. A statement that throws is thrown into the operation (which may catch
 * it); a savepoint's nested operation runs through `inSavepoint`, which undoes its writes if it
 * throws.
 */
export function runSync<T>(op: Op<T>, statements: Statements, inSavepoint: <U>(fn: () => U) => U): T {
  let step = op.next();
  while (step.done !== true) {
    const call = step.value;
    let ok = true;
    let value: unknown;
    try {
      value = call.name === '$savepoint' ? inSavepoint(() => runSync(call.op, statements, inSavepoint)) : (statements[call.name] as AnyStatement)(...call.args);
    } catch (error) {
      ok = false;
      value = error;
    }
    step = resume(op, call, ok, value);
  }
  return step.value;
}

/**
 * The statements of one SQLite table class as plain functions bound to it, so that the store's
 * statement table can be put together from its classes (see ./statements.ts).
 */
export function bound<T extends object>(instance: T): Bound<T> {
  const out: Record<string, unknown> = {};
  for (let proto: object | null = Object.getPrototypeOf(instance); proto !== null && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
    for (const name of Object.getOwnPropertyNames(proto)) {
      if (name === 'constructor' || name in out) continue;
      const value: unknown = Reflect.get(instance, name);
      if (typeof value === 'function') out[name] = value.bind(instance);
    }
  }
  return out as Bound<T>;
}

/** A class's methods as an object's properties (a spread of a class instance's type would drop them). */
export type Bound<T> = { [K in keyof T]: T[K] };
