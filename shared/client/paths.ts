/**
 * Where the daemon listens and keeps its database when nobody says otherwise. The daemon, the
 * CLI and the extension all resolve paths here so they meet at the same socket.
 */
import * as os from 'node:os';
import * as path from 'node:path';

export type Env = Readonly<Record<string, string | undefined>>;

/** `$SPOOL_SOCKET`, else `$XDG_RUNTIME_DIR/spool/spool.sock`, else `~/.spool/spool.sock`. */
export function defaultSocketPath(env: Env = process.env): string {
  if (env.SPOOL_SOCKET) return path.resolve(env.SPOOL_SOCKET);
  if (env.XDG_RUNTIME_DIR) return path.join(env.XDG_RUNTIME_DIR, 'spool', 'spool.sock');
  return path.join(env.HOME || os.homedir(), '.spool', 'spool.sock');
}

/** `$SPOOL_DB`, else `$XDG_DATA_HOME/spool/spool.db`, else `~/.local/share/spool/spool.db`. */
export function defaultDbPath(env: Env = process.env): string {
  if (env.SPOOL_DB) return path.resolve(env.SPOOL_DB);
  const dataHome = env.XDG_DATA_HOME || path.join(env.HOME || os.homedir(), '.local', 'share');
  return path.join(dataHome, 'spool', 'spool.db');
}

/**
 * The daemon's log file sits beside its database, for `spool daemon --detach` and the extension's
 * "Show Daemon Log": `daemon.log` beside Spool's usual `spool.db`, else the database's file name
 * and `.log` (`team.db.log`), so that two daemons on two databases in one folder each have theirs.
 */
export function defaultLogPath(dbPath: string): string {
  return besideDatabase(dbPath, 'daemon.log', '.log');
}

/**
 * The folder of the TLS certificate and key a daemon makes for `--listen`, beside its database:
 * `tls/` beside `spool.db`, else the database's file name and `.tls` (`team.db.tls/`), one per
 * database for the same reason as the log.
 */
export function defaultTlsFolder(dbPath: string): string {
  return besideDatabase(dbPath, 'tls', '.tls');
}

function besideDatabase(dbPath: string, usualName: string, suffix: string): string {
  const name = path.basename(dbPath);
  return path.join(path.dirname(dbPath), name === 'spool.db' ? usualName : `${name}${suffix}`);
}
