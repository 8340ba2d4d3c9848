/**
 * The socket's folder (daemon/lifecycle/socketGuard.ts): owner-only when Spool makes it, made
 * owner-only again when it is one of Spool's own default folders, left alone when the user named it.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { prepareSocketFolder } from '../../daemon/lifecycle/socketGuard';

function tempDir(t: { after(fn: () => void): void }): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spool-socket-folder-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const modeOf = (dir: string): number => fs.statSync(dir).mode & 0o777;

/** A folder made with `mode` exactly (chmod, since mkdir's mode passes through the umask). */
function folderWithMode(dir: string, mode: number): string {
  fs.mkdirSync(dir);
  fs.chmodSync(dir, mode);
  return dir;
}

test('a socket folder Spool creates is owner-only, however deep', (t) => {
  const root = tempDir(t);
  const socket = path.join(root, 'a', 'b', 'spool.sock');
  assert.equal(prepareSocketFolder(socket, { XDG_RUNTIME_DIR: root }), null);
  assert.equal(modeOf(path.dirname(socket)), 0o700);
});

test('the default folder under XDG_RUNTIME_DIR, found open to others, is made owner-only again', (t) => {
  const runtime = tempDir(t);
  const folder = folderWithMode(path.join(runtime, 'spool'), 0o755);
  const note = prepareSocketFolder(path.join(folder, 'spool.sock'), { XDG_RUNTIME_DIR: runtime });
  assert.equal(modeOf(folder), 0o700);
  assert.match(note ?? '', /owner-only \(0700\); it was 0755/);
});

test('the ~/.spool fallback is made owner-only too, even while SPOOL_SOCKET points there', (t) => {
  const home = tempDir(t);
  const folder = folderWithMode(path.join(home, '.spool'), 0o775);
  const socket = path.join(folder, 'spool.sock');
  assert.notEqual(prepareSocketFolder(socket, { HOME: home, SPOOL_SOCKET: socket }), null);
  assert.equal(modeOf(folder), 0o700);
});

test('a folder the user named for the socket keeps its permissions; one that others can write is refused, not changed', (t) => {
  const root = tempDir(t);
  const own = folderWithMode(path.join(root, 'own'), 0o755);
  assert.equal(prepareSocketFolder(path.join(own, 'spool.sock'), { XDG_RUNTIME_DIR: path.join(root, 'runtime') }), null);
  assert.equal(modeOf(own), 0o755);
  // Anyone could replace a socket in a folder every user may write (without the sticky bit).
  const shared = folderWithMode(path.join(root, 'shared'), 0o777);
  assert.throws(() => prepareSocketFolder(path.join(shared, 'spool.sock'), { XDG_RUNTIME_DIR: path.join(root, 'runtime') }), /writable by other users.*chmod 700/s);
  assert.equal(modeOf(shared), 0o777);
});

test('a default folder that is a link to somewhere else is left alone, and so is what it points at', (t) => {
  const home = tempDir(t);
  const elsewhere = folderWithMode(path.join(home, 'shared'), 0o775);
  fs.symlinkSync(elsewhere, path.join(home, '.spool'));
  assert.equal(prepareSocketFolder(path.join(home, '.spool', 'spool.sock'), { HOME: home }), null);
  assert.equal(modeOf(elsewhere), 0o775);
});
