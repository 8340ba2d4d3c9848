/** The worker side: claims, heartbeats, progress, output, completes, failures; leases and recovery. */
import type { HeartbeatResult } from '../../../../shared/protocol';
import type { Job, OutputStream } from '../../../../shared/types';
import type { FailInput, ReleaseInput } from '../../../engine/validate/worker';
import type { ClaimRequest, CompleteOutcome } from '../../backend';
import type { PgTx, Transactions } from '../db';
import { notImplemented } from './stub';

export async function claim(tx: PgTx, request: ClaimRequest): Promise<Job[]> { return notImplemented('claim', tx, request); }
export async function heartbeat(tx: PgTx, id: string, workerId: string, extendMs: number | undefined): Promise<HeartbeatResult> { return notImplemented('heartbeat', tx, id, workerId, extendMs); }
export async function progress(tx: PgTx, id: string, workerId: string, percent: number, message: string | null): Promise<void> { return notImplemented('progress', tx, id, workerId, percent, message); }
export async function checkpoint(tx: PgTx, id: string, workerId: string, value: string): Promise<void> { return notImplemented('checkpoint', tx, id, workerId, value); }
export async function appendOutput(tx: PgTx, id: string, workerId: string, stream: Exclude<OutputStream, 'marker'>, chunks: readonly string[][]): Promise<void> { return notImplemented('appendOutput', tx, id, workerId, stream, chunks); }
export async function complete(tx: PgTx, id: string, workerId: string, result: string | null): Promise<Job> { return notImplemented('complete', tx, id, workerId, result); }
export async function completeMany(tx: PgTx, items: readonly { id: string; workerId: string; result: string | null }[]): Promise<CompleteOutcome[]> { return notImplemented('completeMany', tx, items); }
export async function fail(tx: PgTx, input: FailInput): Promise<Job> { return notImplemented('fail', tx, input); }
export async function release(tx: PgTx, input: ReleaseInput): Promise<Job> { return notImplemented('release', tx, input); }
export async function markCancelled(tx: PgTx, id: string, workerId: string): Promise<Job> { return notImplemented('markCancelled', tx, id, workerId); }
/** Expired leases end as failed attempts, batchSize per transaction (store.write each); how many. */
export async function reapExpiredLeases(store: Transactions): Promise<number> { return notImplemented('reapExpiredLeases', store); }
export async function recoverInterrupted(tx: PgTx, workerIds: string[], aliveUntil: number | undefined): Promise<number> { return notImplemented('recoverInterrupted', tx, workerIds, aliveUntil); }
export async function runningJobIds(tx: PgTx, workerIds: string[]): Promise<string[]> { return notImplemented('runningJobIds', tx, workerIds); }
export async function nextWakeAt(tx: PgTx): Promise<number | null> { return notImplemented('nextWakeAt', tx); }
