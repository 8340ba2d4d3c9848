/**
 * The `spool` command (dist/cli.js, started by bin/spool). Only wiring: the command tree is in
 * program.ts, each command in commands/.
 */
import { reportError } from './action';
import { buildProgram } from './program';

/**
 * Exit once stdout and stderr are flushed. A command that is done must not linger on an open
 * handle, but process.exit() alone drops output still queued for a pipe (`spool logs … | wc`).
 * Writes complete in order, so an empty write's callback means everything before it is out.
 */
function exit(code: number): void {
  process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
}

buildProgram()
  .parseAsync(process.argv)
  .then(
    () => exit(typeof process.exitCode === 'number' ? process.exitCode : 0),
    (error: unknown) => {
      reportError(error);
      exit(typeof process.exitCode === 'number' ? process.exitCode : 1);
    },
  );
