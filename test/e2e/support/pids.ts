/**
 * Daemons the extension starts are detached from VS Code on purpose (one daemon outlives a
 * window). Host suites note each one's pid in `pids.txt` in the scratch folder; the outside test
 * ends any that is still alive when it finishes.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

export function killNotedDaemons(scratch: string): void {
  const file = path.join(scratch, 'pids.txt');
  if (!fs.existsSync(file)) return;
  const pids = fs.readFileSync(file, 'utf8').split('\n').map(Number).filter((p) => Number.isInteger(p) && p > 0);
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch (error) {
      // ESRCH: it has exited already, as it should have.
      if (!(error instanceof Error && 'code' in error && error.code === 'ESRCH')) throw error;
    }
  }
}
