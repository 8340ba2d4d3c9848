/**
 * Packages the extension as users get it: a .vsix made by @vscode/vsce from the dist/ that
 * `npm test` has just built. Packaging does not rebuild, so it never rewrites dist/ under tests
 * that run at the same time.
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from './paths';

const run = promisify(execFile);

export async function packageExtension(outDir: string): Promise<string> {
  for (const bundle of ['extension.js', 'daemon.js']) {
    if (!fs.existsSync(path.join(ROOT, 'dist', bundle))) {
      throw new Error(`dist/${bundle} is missing: run \`npm run build\` before the e2e tests.`);
    }
  }
  const out = path.join(outDir, 'spool.vsix');
  const vsce = path.join(ROOT, 'node_modules', '@vscode', 'vsce', 'vsce');
  try {
    await run(process.execPath, [vsce, 'package', '--allow-missing-repository', '--skip-license', '--no-rewrite-relative-links', '--out', out], {
      cwd: ROOT,
      maxBuffer: 16 * 1024 * 1024,
    });
  } catch (error) {
    const detail = error instanceof Error && 'stderr' in error ? String(error.stderr) : String(error);
    throw new Error(`Packaging the extension with vsce failed:\n${detail}`);
  }
  return out;
}
