/**
 * The `spool` command (dist/cli.js, started by bin/spool). Only wiring: the command tree is in
 * program.ts, each command in commands/.
 */
import { reportError } from './action';
import { buildProgram } from './program';

buildProgram()
  .parseAsync(process.argv)
  .then(
    // Exit explicitly: a command that is done must not linger on an open handle.
    () => process.exit(process.exitCode ?? 0),
    (error: unknown) => {
      reportError(error);
      process.exit(process.exitCode ?? 1);
    },
  );
