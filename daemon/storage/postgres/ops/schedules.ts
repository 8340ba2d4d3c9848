/** Schedules: CRUD, the tick's compare-and-swap (with the unique (schedule, fire time) backstop), trigger. */
import type { EnqueueResult } from '../../../../shared/protocol';
import type { Job, Schedule } from '../../../../shared/types';
import type { ScheduleChanges, ScheduleInput } from '../../../engine/validate/schedules';
import type { FireScheduleParams } from '../../backend';
import type { PgTx } from '../db';
import { notImplemented } from './stub';

export async function listSchedules(tx: PgTx): Promise<Schedule[]> { return notImplemented('listSchedules', tx); }
export async function getSchedule(tx: PgTx, name: string): Promise<Schedule> { return notImplemented('getSchedule', tx, name); }
export async function createSchedule(tx: PgTx, input: ScheduleInput, nextRunAt: number | null): Promise<Schedule> { return notImplemented('createSchedule', tx, input, nextRunAt); }
export async function updateSchedule(tx: PgTx, changes: ScheduleChanges, nextRunAt: number | null | undefined): Promise<Schedule> { return notImplemented('updateSchedule', tx, changes, nextRunAt); }
export async function deleteSchedule(tx: PgTx, name: string): Promise<void> { return notImplemented('deleteSchedule', tx, name); }
export async function fireSchedule(tx: PgTx, params: FireScheduleParams): Promise<{ schedule: Schedule; job: Job | null } | null> { return notImplemented('fireSchedule', tx, params); }
export async function triggerSchedule(tx: PgTx, name: string): Promise<EnqueueResult> { return notImplemented('triggerSchedule', tx, name); }
