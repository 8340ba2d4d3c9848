/**
 * Where a job was enqueued from: the folder, and the git branch and commit when the folder is
 * in a git work tree. Read from .git directly (HEAD, the ref file or packed-refs) rather than by
 * running git, so enqueueing stays fast and works where git is not installed. Anything unusual
 * (a worktree's .git file, a detached HEAD) gives what can be known and no more.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { JobContext } from '../shared/protocol/types';

export function enqueueContext(cwd: string = process.cwd()): JobContext {
  const context: JobContext = { origin: 'cli', workspace: cwd };
  const gitDir = findGitDir(cwd);
  if (!gitDir) return context;
  const head = readText(path.join(gitDir, 'HEAD'));
  if (!head) return context;
  const ref = /^ref: (refs\/heads\/(.+))$/.exec(head);
  if (!ref) {
    if (/^[0-9a-f]{40}$/.test(head)) context.commit = head;
    return context;
  }
  const [, refName = '', branch = ''] = ref;
  context.branch = branch;
  const commit = readText(path.join(gitDir, refName)) ?? packedRef(gitDir, refName);
  if (commit && /^[0-9a-f]{40}$/.test(commit)) context.commit = commit;
  return context;
}

function findGitDir(start: string): string | null {
  for (let dir = start; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, '.git');
    if (isDirectory(candidate)) return candidate;
    if (path.dirname(dir) === dir) return null;
  }
}

function isDirectory(p: string): boolean {
  return fs.statSync(p, { throwIfNoEntry: false })?.isDirectory() ?? false;
}

/** The trimmed contents, or null when the file is not there or not readable. */
function readText(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch (error) {
    // Missing or unreadable: the context simply has less in it.
    if (error instanceof Error && 'code' in error && (error.code === 'ENOENT' || error.code === 'EACCES' || error.code === 'EISDIR')) return null;
    throw error;
  }
}

function packedRef(gitDir: string, refName: string): string | null {
  const packed = readText(path.join(gitDir, 'packed-refs'));
  if (!packed) return null;
  for (const line of packed.split('\n')) {
    const [sha, name] = line.split(' ');
    if (name === refName && sha) return sha;
  }
  return null;
}
