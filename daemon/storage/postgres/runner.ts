/**
 * How the PostgreSQL store runs a job operation (see ../statements/index.ts): the same
 * generator the SQLite store drives synchronously, driven here asynchronously, each yielded
 * statement awaited on the transaction's connection. A transaction that must run again (a
 * serialization failure, a deadlock) starts a fresh generator: operations keep no state outside it.
 */
import type { AsyncStatements, Op, Settled } from '../statements';
import type { PgTx } from './db';

type AnyStatement = (tx: PgTx, ...args: readonly unknown[]) => Promise<unknown>;

/** Drives `op` to its end on `tx`. A statement that rejects is thrown into the operation. */
export async function runAsync<T>(tx: PgTx, op: Op<T>, statements: AsyncStatements<PgTx>): Promise<T> {
  let step = op.next();
  while (step.done !== true) {
    const call = step.value;
    if (call.name === '$savepoint') {
      const nested = call.op;
      let settled: Settled<unknown>;
      try {
        settled = { ok: true, value: await tx.savepoint(() => runAsync(tx, nested, statements)) };
      } catch (error) {
        settled = { ok: false, error };
      }
      step = op.next(settled);
      continue;
    }
    let result: unknown;
    try {
      result = await (statements[call.name] as AnyStatement)(tx, ...call.args);
    } catch (error) {
      step = op.throw(error);
      continue;
    }
    step = op.next(result);
  }
  return step.value;
}
