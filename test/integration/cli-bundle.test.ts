/**
 * The `spool` command is a client: dist/cli.js carries no database driver and none of the
 * daemon's code. `spool daemon` starts the daemon program (dist/daemon.js) instead. Reads the
 * bundles `npm run build` made (`npm test` builds first).
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { ROOT } from './cli-run';

const DIST = path.join(ROOT, 'dist');

/** The source files esbuild put in a bundle, from its source map, relative to the repository. */
function bundledSources(bundle: string): string[] {
  const mapPath = path.join(DIST, `${bundle}.map`);
  assert.ok(fs.existsSync(mapPath), `${mapPath} is missing: build first (npm run build)`);
  const map: unknown = JSON.parse(fs.readFileSync(mapPath, 'utf8'));
  assert.ok(typeof map === 'object' && map !== null && 'sources' in map && Array.isArray(map.sources), `${mapPath} has no sources list`);
  return map.sources.map((source: unknown) => path.relative(ROOT, path.resolve(DIST, String(source))));
}

test('dist/cli.js does not contain better-sqlite3', () => {
  const text = fs.readFileSync(path.join(DIST, 'cli.js'), 'utf8');
  const at = text.indexOf('better-sqlite3');
  assert.equal(at, -1, `dist/cli.js names better-sqlite3: …${text.slice(Math.max(0, at - 200), at + 100)}…`);
});

test('dist/cli.js bundles no module of the daemon (engine, store, rpc, lifecycle…)', () => {
  const sources = bundledSources('cli.js');
  assert.ok(sources.some((source) => source.startsWith(`cli${path.sep}`)), `the map lists the CLI's own modules: ${sources.slice(0, 5).join(', ')}`);
  const fromDaemon = sources.filter((source) => source.startsWith(`daemon${path.sep}`) || source.includes(`node_modules${path.sep}better-sqlite3`));
  assert.deepEqual(fromDaemon, [], 'the CLI imports shared/ only');
});

test('dist/daemon.js still carries the engine and the driver the CLI leaves out', () => {
  // The check above is only meaningful if the same reading finds them where they belong.
  const sources = bundledSources('daemon.js');
  assert.ok(sources.some((source) => source.startsWith(path.join('daemon', 'engine'))), 'daemon.js bundles the engine');
  assert.ok(fs.readFileSync(path.join(DIST, 'daemon.js'), 'utf8').includes('better-sqlite3'), 'daemon.js loads better-sqlite3');
});
