/** The extension's settings (`spool.*`), read fresh each time so a change applies at once. */
import * as vscode from 'vscode';
import { defaultSocketPath } from '../shared/client/paths';

export type NotificationLevel = 'all' | 'failures' | 'none';

export interface SpoolSettings {
  socketPath: string;
  /** Empty: the daemon's default. */
  databasePath: string;
  autoStartDaemon: boolean;
  nodePath: string;
  notifications: NotificationLevel;
  pageSize: number;
  /** Show a queue's state groups that hold no jobs. */
  showEmptyGroups: boolean;
  /** `tls://host:port` of a daemon on another machine; empty for the local one. */
  endpoint: string;
  /** The remote daemon's certificate fingerprint (`sha256:…`), or empty. */
  tlsFingerprint: string;
  /** A CA file that signed the remote daemon's certificate, or empty. */
  tlsCa: string;
}

export function readSettings(): SpoolSettings {
  const c = vscode.workspace.getConfiguration('spool');
  const socket = c.get<string>('socketPath', '').trim();
  const level = c.get<string>('notifications', 'failures');
  const pageSize = c.get<number>('pageSize', 50);
  return {
    socketPath: socket !== '' ? socket : defaultSocketPath(),
    databasePath: c.get<string>('databasePath', '').trim(),
    autoStartDaemon: c.get<boolean>('autoStartDaemon', true),
    nodePath: c.get<string>('nodePath', 'node').trim() || 'node',
    notifications: level === 'all' || level === 'none' ? level : 'failures',
    pageSize: Math.min(1000, Math.max(10, Math.floor(Number.isFinite(pageSize) ? pageSize : 50))),
    showEmptyGroups: c.get<boolean>('showEmptyGroups', false),
    endpoint: c.get<string>('endpoint', '').trim(),
    tlsFingerprint: c.get<string>('tlsFingerprint', '').trim(),
    tlsCa: c.get<string>('tlsCa', '').trim(),
  };
}
