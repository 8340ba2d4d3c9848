/**
 * Which limit a shell job ran into, from how its command ended: the cases the daemon cannot
 * provoke in a test run as root (RLIMIT_NPROC does not bind root) or without a low hard limit.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { limitHit, limitsRefused } from '../../daemon/executors/limits';
import { prlimitArguments } from '../../shared/client/processGroup';

const ended = (code: number | null, signal: NodeJS.Signals | null, stderrTail = '') => ({ code, signal, stderrTail });

test('the limits become prlimit options; CPU time gets a second before SIGKILL', () => {
  assert.deepEqual(prlimitArguments({ memoryBytes: 512 * 1024 ** 2, cpuSeconds: 30, openFiles: 64, processes: 10 }), ['--as=536870912', '--cpu=30:31', '--nofile=64', '--nproc=10']);
  assert.deepEqual(prlimitArguments({}), []);
});

test('CPU time: SIGXCPU or SIGKILL, as a signal or as the shell status 128 + n', () => {
  for (const ending of [ended(null, 'SIGXCPU'), ended(null, 'SIGKILL'), ended(152, null), ended(137, null)]) {
    assert.equal(limitHit({ cpuSeconds: 90 }, ending), 'Killed: CPU time limit 1m30s');
  }
  assert.equal(limitHit({}, ended(null, 'SIGXCPU')), null, 'no limit set, nothing named');
  assert.equal(limitHit({ cpuSeconds: 90 }, ended(1, null)), null);
});

test('memory: the usual words of a failed allocation on stderr, with a memory limit set', () => {
  for (const words of ['MemoryError', 'malloc: Cannot allocate memory', "terminate called after throwing an instance of 'std::bad_alloc'", 'fatal error: out of memory']) {
    assert.equal(limitHit({ memoryBytes: 512 * 1024 ** 2 }, ended(1, null, words)), 'Killed: memory limit 512 MiB', words);
  }
  assert.equal(limitHit({ openFiles: 64 }, ended(1, null, 'MemoryError')), null);
});

test('open files and processes: EMFILE and a refused fork on stderr, with that limit set', () => {
  assert.equal(limitHit({ openFiles: 64 }, ended(1, null, 'OSError: [Errno 24] Too many open files')), 'Failed: open files limit 64');
  assert.equal(limitHit({ processes: 10 }, ended(2, null, 'sh: 1: Cannot fork')), 'Failed: process limit 10 (counted for the whole user)');
  assert.equal(limitHit({ processes: 10 }, ended(1, null, 'bash: fork: retry: Resource temporarily unavailable')), 'Failed: process limit 10 (counted for the whole user)');
});

test("prlimit's refusal to set a limit is told as such", () => {
  const stderr = 'prlimit: failed to set the NOFILE resource limit: Operation not permitted';
  assert.equal(limitsRefused({ openFiles: 100_000 }, ended(1, null, stderr)), stderr);
  assert.equal(limitsRefused({}, ended(1, null, stderr)), null, 'no limits, no prlimit');
});
