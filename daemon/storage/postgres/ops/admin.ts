/** The daemons running on the database, and access tokens. */
import type { DaemonInstance, DaemonRegistration, StoredToken } from '../../backend';
import type { PgTx } from '../db';
import { notImplemented } from './stub';

export async function registerDaemon(tx: PgTx, registration: DaemonRegistration): Promise<DaemonInstance> { return notImplemented('registerDaemon', tx, registration); }
export async function listDaemons(tx: PgTx): Promise<DaemonInstance[]> { return notImplemented('listDaemons', tx); }
export async function daemonHeartbeat(tx: PgTx, id: string, pid: number): Promise<boolean> { return notImplemented('daemonHeartbeat', tx, id, pid); }
export async function daemonStopped(tx: PgTx, id: string, pid: number): Promise<boolean> { return notImplemented('daemonStopped', tx, id, pid); }
export async function forgetDaemon(tx: PgTx, id: string, pid: number): Promise<boolean> { return notImplemented('forgetDaemon', tx, id, pid); }
export async function createToken(tx: PgTx, token: StoredToken): Promise<void> { return notImplemented('createToken', tx, token); }
export async function listTokens(tx: PgTx): Promise<StoredToken[]> { return notImplemented('listTokens', tx); }
export async function revokeToken(tx: PgTx, name: string): Promise<boolean> { return notImplemented('revokeToken', tx, name); }
