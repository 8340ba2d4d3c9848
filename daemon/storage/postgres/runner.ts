/**
 * How the PostgreSQL store runs a job operation (see ../statements/index.ts): the same
 * generator the SQLite store drives synchronously, driven here asynchronously, each yielded
 * statement awaited on the transaction's connection. A transaction that must run again (a
 * serialization failure, a deadlock) starts a fresh generator: operations keep no state outside it.
 */
import { resume, type AsyncStatements, type Op } from '../statements';
import type { PgTx } from './db';

type AnyStatement = (tx: PgTx, ...args: readonly unknown[]) => Promise<unknown>;

/** Drives `op` to its end on `tx`. A statement that rejects is thrown into the operation. */
export async function runAsync<T>(tx: PgTx, op: Op<T>, statements: AsyncStatements<PgTx>): Promise<T> {
  let step = op.next();
  while (step.done !== true) {
    const call = step.value;
    let ok = true;
    let value: unknown;
    try {
      value = call.name === '$savepoint' ? await tx.savepoint(() => runAsync(tx, call.op, statements)) : await (statements[call.name] as AnyStatement)(tx, ...call.args);
    } catch (error) {
      ok = false;
      value = error;
    }
    step = resume(op, call, ok, value);
  }
  return step.value;
}
