/** Queues: listing with counts, settings, pause, purge, delete. */
import type { JobState, Queue } from '../../../../shared/types';
import type { ConfigureInput } from '../../../engine/validate/queues';
import type { PgTx, Transactions } from '../db';
import { notImplemented } from './stub';

export async function listQueues(tx: PgTx): Promise<Queue[]> { return notImplemented('listQueues', tx); }
export async function getQueue(tx: PgTx, name: string): Promise<Queue> { return notImplemented('getQueue', tx, name); }
export async function configureQueue(tx: PgTx, input: ConfigureInput): Promise<Queue> { return notImplemented('configureQueue', tx, input); }
export async function setPaused(tx: PgTx, name: string, paused: boolean): Promise<Queue> { return notImplemented('setPaused', tx, name, paused); }
/** batchSize jobs per transaction (store.write each). */
export async function purgeQueue(store: Transactions, name: string, states: JobState[]): Promise<number> { return notImplemented('purgeQueue', store, name, states); }
export async function deleteQueue(store: Transactions, name: string, force: boolean): Promise<number> { return notImplemented('deleteQueue', store, name, force); }
