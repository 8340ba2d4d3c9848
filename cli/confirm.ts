/**
 * Asking a person before a change: a yes/no question on the terminal. A command that changes
 * things never asks where no one can answer (no terminal on stdin): it refuses, and says which
 * flag says yes, so a script or CI job never hangs on a prompt.
 */
import * as readline from 'node:readline/promises';
import { CliError } from './errors';

/**
 * True when the person answers yes. Without a terminal on stdin, refuses with a CliError that
 * names `yesFlag`.
 */
export async function confirm(question: string, yesFlag: string, input: NodeJS.ReadStream = process.stdin, output: NodeJS.WriteStream = process.stderr): Promise<boolean> {
  if (!input.isTTY) throw new CliError(`Not asking: no terminal to answer on. Pass ${yesFlag} to go ahead without asking.`);
  const rl = readline.createInterface({ input, output });
  try {
    const answer = await rl.question(`${question} [y/N] `);
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    rl.close();
  }
}
