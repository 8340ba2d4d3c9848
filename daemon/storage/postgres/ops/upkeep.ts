/** Stats from the sharded counters, retention, and the counters' check. */
import type { Stats } from '../../../../shared/protocol';
import type { CounterMismatch } from '../../backend';
import type { PgTx, Transactions } from '../db';
import { notImplemented } from './stub';

export async function stats(tx: PgTx): Promise<Stats> { return notImplemented('stats', tx); }
/** Retention: up to `limit` finished jobs past their queue's retention, in batchSize transactions; old stat buckets and schedule fires. */
export async function cleanup(store: Transactions, limit: number): Promise<number> { return notImplemented('cleanup', store, limit); }
export async function verifyCounters(tx: PgTx): Promise<{ ok: boolean; mismatches: CounterMismatch[] }> { return notImplemented('verifyCounters', tx); }
