/**
 * Asking before a command destroys what cannot be brought back. On a terminal the question is
 * asked on stderr and answered on stdin; `--yes` answers it beforehand. Without a terminal
 * (a script, a pipe) there is nobody to ask, so the command refuses and says to pass --yes:
 * deleting by default from a script would make a typo in a queue name expensive.
 */
import { createInterface } from 'node:readline/promises';
import type { CliContext } from './context';
import { CliError } from './errors';

export interface ConfirmOptions {
  /** What will be done, in a sentence: "This deletes 3 jobs of images and their output." */
  what: string;
  /** The question: "Purge them?" */
  question: string;
  /** `--yes` was given. */
  yes: boolean;
}

/** Resolves when the user agreed (or passed --yes); throws a CliError when they did not or cannot. */
export async function confirm(ctx: CliContext, o: ConfirmOptions): Promise<void> {
  if (o.yes) return;
  if (!process.stdin.isTTY || !ctx.stderr.isTTY) {
    throw new CliError(`${o.what} There is no terminal to ask on: pass --yes to go ahead.`);
  }
  const rl = createInterface({ input: process.stdin, output: ctx.stderr });
  try {
    const answer = await rl.question(`${o.what} ${o.question} [y/N] `);
    if (!/^y(es)?$/i.test(answer.trim())) throw new CliError('Nothing was done (answer y to go ahead, or pass --yes).');
  } finally {
    rl.close();
  }
}
