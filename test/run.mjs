// Runs every test with node's built-in runner (TypeScript loaded through tsx):
//   node test/run.mjs [unit|conformance|integration|security|e2e ...]   (default: all levels)
// security holds one test per promise of SECURITY.md, each against real daemons and real files.
// conformance runs the engine suite and the statement suite against every store (test/conformance/<store>.test.ts).
// Integration tests start the built daemon (dist/), so `npm test` builds first.
// The e2e level needs code-server and chromium (see .ci/run); it runs (after the others) when
// test/e2e exists and SPOOL_SKIP_E2E is not set.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const levels = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const wanted = levels.length > 0 ? levels : ['unit', 'conformance', 'integration', 'security', 'e2e'];

function testFiles(dir) {
  if (!existsSync(dir)) return [];
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) out.push(...testFiles(full));
    else if (name.endsWith('.test.ts')) out.push(full);
  }
  return out;
}

// The end-to-end tests run after the rest, on their own and one file at a time: some hold the
// editor to a time limit (a job page opening in under 500 ms), and they must not share the two
// cores with a PostgreSQL server and daemons of an integration test, or with another editor.
const groups = [[], []];
for (const level of wanted) {
  if (level === 'e2e' && process.env.SPOOL_SKIP_E2E) {
    console.log('e2e tests skipped: SPOOL_SKIP_E2E is set');
    continue;
  }
  groups[level === 'e2e' ? 1 : 0].push(...testFiles(join(root, 'test', level)));
}
if (groups[0].length + groups[1].length === 0) {
  console.error(`No test files under test/{${wanted.join(',')}}`);
  process.exit(1);
}

let failed = false;
for (const [i, files] of groups.entries()) {
  if (files.length === 0) continue;
  // One editor at a time: two code-servers with their browsers already fill both cores.
  const concurrency = i === 1 ? 1 : 2;
  const result = spawnSync(
    process.execPath,
    ['--import', 'tsx', '--test', '--test-reporter=spec', `--test-concurrency=${concurrency}`, ...files],
    { cwd: root, stdio: 'inherit' },
  );
  if (result.status !== 0) failed = true;
}
process.exit(failed ? 1 : 0);
