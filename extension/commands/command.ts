/**
 * The shape of a command: an id (`spool.<resource>.<verb>`) and what it does. Arguments are what
 * VS Code passes: from a tree item menu the clicked node and the selected nodes; from the
 * palette nothing; from another extension or a test, documented per command.
 */
import type { SpoolContext } from '../context';

export interface SpoolCommand {
  id: string;
  /** False for the commands that work without a daemon (start it, show logs). */
  needsDaemon: boolean;
  run(ctx: SpoolContext, ...args: unknown[]): unknown;
}

export function command(id: string, run: SpoolCommand['run'], needsDaemon = true): SpoolCommand {
  return { id, run, needsDaemon };
}
