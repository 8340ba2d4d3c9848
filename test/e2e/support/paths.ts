/** Where the e2e tests find the project, code-server, chromium and their artifact folder. */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export const CODE_SERVER_VERSION = '4.100.3';
export const ROOT = path.resolve(__dirname, '..', '..', '..');
export const ARTIFACTS = path.join(ROOT, '.test-artifacts');
export const CHROMIUM = process.env.SPOOL_E2E_CHROMIUM ?? '/usr/bin/chromium';

export function codeServerEntry(): string {
  const cache = process.env.SPOOL_E2E_CACHE ?? path.join(os.homedir(), '.cache', 'spool-e2e');
  const entry = path.join(cache, `code-server-${CODE_SERVER_VERSION}`, 'node_modules', 'code-server', 'out', 'node', 'entry.js');
  if (!fs.existsSync(entry)) {
    throw new Error(`code-server ${CODE_SERVER_VERSION} is not installed at ${entry}. Run \`bash scripts/e2e-setup.sh\` once (it caches it).`);
  }
  if (!fs.existsSync(CHROMIUM)) {
    throw new Error(`Chromium is missing at ${CHROMIUM}. Run \`bash scripts/e2e-setup.sh\` (it installs Debian's chromium).`);
  }
  return entry;
}

/** A fresh temporary folder, removed by the returned cleanup. Kept short: Unix socket paths are limited to 107 bytes. */
export function tempDir(prefix: string): { dir: string; remove: () => void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  return { dir, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

export function artifactPath(name: string): string {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  return path.join(ARTIFACTS, name);
}
