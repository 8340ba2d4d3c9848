/**
 * How a daemon judges another recorded daemon dead before recovering its jobs
 * (daemon/lifecycle/instance.ts daemonDead): by its pid where that is certain, by its heartbeat
 * only where the pid cannot tell and only when the caller trusts heartbeats; a daemon whose
 * process is certainly alive is never dead, however old its heartbeat.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as os from 'node:os';
import { test } from 'node:test';
import { daemonDead, processStartTime } from '../../daemon/lifecycle/instance';

const HOST = os.hostname();
const NOW = 1_000_000;
const CUTOFF = NOW - 10_000;
const me = { host: HOST, pid: process.pid, processStart: processStartTime(process.pid), stoppedAt: null, heartbeatAt: NOW };

test('a daemon that stopped cleanly is dead, wherever it ran', () => {
  assert.equal(daemonDead({ ...me, stoppedAt: NOW }, HOST, null), true);
  assert.equal(daemonDead({ ...me, host: 'elsewhere', stoppedAt: NOW }, HOST, null), true);
});

test('on this host, a gone pid is dead and a live process that started when the daemon did is alive, even with a silent heartbeat', async () => {
  const child = spawn(process.execPath, ['-e', '']);
  const pid = child.pid;
  assert.ok(pid !== undefined);
  await new Promise((resolve) => child.once('exit', resolve));
  assert.equal(daemonDead({ ...me, pid }, HOST, CUTOFF), true, 'its pid is gone');
  assert.equal(daemonDead({ ...me, heartbeatAt: 0 }, HOST, CUTOFF), false, 'its process is certainly alive: a hung event loop is not a death');
  assert.equal(daemonDead({ ...me, processStart: '1' }, HOST, null), true, 'its pid was reused by a process started at another time');
});

test('on this host with no start time to compare, the heartbeat decides, when heartbeats are trusted', () => {
  const unsure = { ...me, processStart: null };
  assert.equal(daemonDead({ ...unsure, heartbeatAt: NOW - 2000 }, HOST, CUTOFF), false);
  assert.equal(daemonDead({ ...unsure, heartbeatAt: CUTOFF - 1 }, HOST, CUTOFF), true);
  assert.equal(daemonDead({ ...unsure, heartbeatAt: CUTOFF - 1 }, HOST, null), false, 'untrusted (SQLite, or just after an outage): left alone');
});

test('on another host only the heartbeat can tell: silent past the cutoff is dead, and nothing is dead while heartbeats are not trusted', () => {
  const remote = { ...me, host: 'build-box-2', pid: 1 };
  assert.equal(daemonDead({ ...remote, heartbeatAt: NOW - 2000 }, HOST, CUTOFF), false);
  assert.equal(daemonDead({ ...remote, heartbeatAt: CUTOFF }, HOST, CUTOFF), false, 'a heartbeat at the cutoff is still alive');
  assert.equal(daemonDead({ ...remote, heartbeatAt: CUTOFF - 1 }, HOST, CUTOFF), true);
  assert.equal(daemonDead({ ...remote, heartbeatAt: 0 }, HOST, null), false);
});
