/**
 * The engine works through the storage interface only: no file under daemon/engine/ imports a
 * store's internals (daemon/storage/<store>/) or a database driver. Read from the sources, so a
 * stray import fails here naming its file and line.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';

const root = path.resolve(__dirname, '../..');
const engineDir = path.join(root, 'daemon/engine');
const storageDir = path.join(root, 'daemon/storage');
/** What the engine may import from daemon/storage/: the interface and the refusals every store words alike. */
const ALLOWED = new Set([path.join(storageDir, 'backend'), path.join(storageDir, 'errors')]);
const DRIVERS = ['better-sqlite3', 'pg'];

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sources(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

test('the engine imports from daemon/storage/ only the storage interface and its errors, and no database driver', () => {
  const offending: string[] = [];
  for (const file of sources(engineDir)) {
    fs.readFileSync(file, 'utf8')
      .split('\n')
      .forEach((line, i) => {
        const match = /^\s*(?:import|export)\b.*?\bfrom\s+'([^']+)'/.exec(line);
        const specifier = match?.[1];
        if (specifier === undefined) return;
        const where = `${path.relative(root, file)}:${i + 1}: ${line.trim()}`;
        if (DRIVERS.includes(specifier)) offending.push(where);
        if (!specifier.startsWith('.')) return;
        const target = path.resolve(path.dirname(file), specifier).replace(/\.ts$/, '');
        if (target.startsWith(storageDir + path.sep) && !ALLOWED.has(target)) offending.push(where);
      });
  }
  assert.deepEqual(offending, [], 'imports of a store\'s internals or of a driver from daemon/engine/');
});
