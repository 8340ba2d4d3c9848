/**
 * Glue between commander and the commands: every action gets a `CliContext`, its positional
 * arguments and its options; its returned number becomes the exit status; any error becomes one
 * line on stderr and exit status 1. The connection is closed when the action ends.
 */
import { Command, type OptionValues } from 'commander';
import { CliContext } from './context';
import { cliMessage } from './errors';

export type Positional = string | string[] | undefined;

export function action<O extends OptionValues>(handler: (ctx: CliContext, args: Positional[], options: O) => Promise<number | void>): (...args: unknown[]) => Promise<void> {
  return async (...raw: unknown[]) => {
    const command = raw[raw.length - 1];
    if (!(command instanceof Command)) throw new Error('commander did not pass the command to its action');
    const ctx = CliContext.of(command);
    try {
      const status = await handler(ctx, raw.slice(0, -2).map(toPositional), command.opts<O>());
      if (typeof status === 'number') process.exitCode = status;
    } catch (error) {
      reportError(error, commandPath(command));
    } finally {
      ctx.close();
    }
  };
}

/** The command's words after `spool`: "enqueue", "schedule add". */
function commandPath(command: Command): string {
  const names: string[] = [];
  for (let c: Command | null = command; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

function toPositional(value: unknown): Positional {
  if (typeof value === 'string' || value === undefined) return value;
  if (Array.isArray(value)) return value.map(String);
  return String(value);
}

/**
 * `spool: <reason>` on stderr and exit status 1 (or the error's own status). The daemon's errors
 * are said in the words of the command that met them (`command`: "enqueue", "schedule add").
 */
export function reportError(error: unknown, command = ''): void {
  const message = cliMessage(error, command);
  process.stderr.write(`spool: ${message.split('\n')[0]}\n`);
  const code = typeof error === 'object' && error !== null && 'exitCode' in error && typeof error.exitCode === 'number' ? error.exitCode : 1;
  process.exitCode = code;
}

/** The n-th positional as one string (commander has already checked required ones). */
export function arg(args: Positional[], n: number): string {
  const v = args[n];
  return Array.isArray(v) ? v.join(' ') : (v ?? '');
}

/** The n-th positional as a list (a variadic `<id...>`). */
export function list(args: Positional[], n: number): string[] {
  const v = args[n];
  if (v === undefined) return [];
  return Array.isArray(v) ? v : [v];
}
