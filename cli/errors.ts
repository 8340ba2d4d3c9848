/**
 * The CLI's own errors: bad input found before anything is sent. Printed as one line, exit 1.
 * Errors from the daemon arrive as SpoolError and are printed the same way.
 */
export class CliError extends Error {
  override readonly name = 'CliError';

  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}
