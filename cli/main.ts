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

// The reader went away (`spool logs -f <id> | head`): stop quietly, as other commands do.
// Any other write error is a real one and is reported.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
    process.stderr.write(`spool: cannot write the output: ${error.message}\n`);
    process.exit(1);
  });
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
