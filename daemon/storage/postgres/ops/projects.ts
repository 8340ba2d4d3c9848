/** Jobs as code: templates, ownership records and a project's apply (serialized by an advisory lock). */
import type { ApplyDecision, ProjectObjects, StoredTemplate } from '../../backend';
import type { PgTx } from '../db';
import { notImplemented } from './stub';

export async function projectObjects(tx: PgTx): Promise<ProjectObjects> { return notImplemented('projectObjects', tx); }
export async function listTemplates(tx: PgTx): Promise<StoredTemplate[]> { return notImplemented('listTemplates', tx); }
export async function getTemplate(tx: PgTx, name: string): Promise<StoredTemplate> { return notImplemented('getTemplate', tx, name); }
export async function applyProject<T>(tx: PgTx, decide: (objects: ProjectObjects) => ApplyDecision<T>): Promise<T> { return notImplemented('applyProject', tx, decide); }
