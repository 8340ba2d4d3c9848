/** A user's actions on jobs: cancel, retry, update, delete, and the bulk forms' id lists. */
import type { BulkResult } from '../../../../shared/protocol';
import type { Job } from '../../../../shared/types';
import type { BulkInput, UpdateInput } from '../../../engine/validate/jobs';
import type { PgTx } from '../db';
import { notImplemented } from './stub';

export async function cancel(tx: PgTx, id: string): Promise<Job> { return notImplemented('cancel', tx, id); }
export async function retry(tx: PgTx, id: string): Promise<Job> { return notImplemented('retry', tx, id); }
export async function update(tx: PgTx, input: UpdateInput): Promise<Job> { return notImplemented('update', tx, input); }
export async function deleteJob(tx: PgTx, id: string): Promise<void> { return notImplemented('deleteJob', tx, id); }
/** The ids a bulk action acts on: the given ids, or every match of its filter. */
export async function bulkIds(tx: PgTx, input: BulkInput): Promise<string[]> { return notImplemented('bulkIds', tx, input); }
/** Runs `action` for each id (each in a savepoint: a refusal undoes only itself), counting successes and collecting refusals into `result`. */
export async function applyEach(tx: PgTx, ids: readonly string[], action: (id: string) => Promise<unknown>, result: BulkResult): Promise<void> { return notImplemented('applyEach', tx, ids, action, result); }
