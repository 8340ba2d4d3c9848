/** Workers: registration, listing, liveness. */
import type { Worker, WorkerType } from '../../../../shared/types';
import type { RegisterInput } from '../../../engine/validate/worker';
import type { PgTx } from '../db';
import { notImplemented } from './stub';

export async function registerWorker(tx: PgTx, input: RegisterInput, type: WorkerType): Promise<Worker> { return notImplemented('registerWorker', tx, input, type); }
export async function listWorkers(tx: PgTx): Promise<Worker[]> { return notImplemented('listWorkers', tx); }
export async function touchWorker(tx: PgTx, workerId: string): Promise<void> { return notImplemented('touchWorker', tx, workerId); }
export async function markWorkerGone(tx: PgTx, workerId: string): Promise<void> { return notImplemented('markWorkerGone', tx, workerId); }
