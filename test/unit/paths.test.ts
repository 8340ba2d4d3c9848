/**
 * Where the daemon, the CLI and the extension look for the socket and the database when nobody
 * says (shared/client/paths.ts): they must all agree, so the rules are pinned here.
 */
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { test } from 'node:test';
import { defaultDbPath, defaultLogPath, defaultSocketPath, defaultTlsFolder } from '../../shared/client/paths';

test('the socket: SPOOL_SOCKET, else under XDG_RUNTIME_DIR, else ~/.spool', () => {
  assert.equal(defaultSocketPath({ SPOOL_SOCKET: 'rel/s.sock', XDG_RUNTIME_DIR: '/run/user/1', HOME: '/home/a' }), path.resolve('rel/s.sock'));
  assert.equal(defaultSocketPath({ XDG_RUNTIME_DIR: '/run/user/1', HOME: '/home/a' }), '/run/user/1/spool/spool.sock');
  assert.equal(defaultSocketPath({ HOME: '/home/a' }), '/home/a/.spool/spool.sock');
  assert.equal(defaultSocketPath({ XDG_RUNTIME_DIR: '', HOME: '/home/a' }), '/home/a/.spool/spool.sock', 'an empty variable counts as unset');
});

test('the database: SPOOL_DB, else under XDG_DATA_HOME, else ~/.local/share; the log beside it', () => {
  assert.equal(defaultDbPath({ SPOOL_DB: 'data/q.db', XDG_DATA_HOME: '/x', HOME: '/home/a' }), path.resolve('data/q.db'));
  assert.equal(defaultDbPath({ XDG_DATA_HOME: '/x', HOME: '/home/a' }), '/x/spool/spool.db');
  assert.equal(defaultDbPath({ HOME: '/home/a' }), '/home/a/.local/share/spool/spool.db');
  assert.equal(defaultLogPath('/x/spool/spool.db'), '/x/spool/daemon.log');
});

test('two databases in one folder each have their own log and TLS folder', () => {
  assert.equal(defaultLogPath('/srv/q/team.db'), '/srv/q/team.db.log');
  assert.equal(defaultTlsFolder('/srv/q/team.db'), '/srv/q/team.db.tls');
  assert.equal(defaultTlsFolder('/srv/q/spool.db'), '/srv/q/tls');
  assert.notEqual(defaultLogPath('/srv/q/a.db'), defaultLogPath('/srv/q/b.db'));
});
