/**
 * `spool lsp --stdio`: the language server of spool.jsonc, for any LSP editor. Runs the server
 * program (dist/lsp.js, beside this bundle) with this process's standard streams, as `spool
 * daemon` runs dist/daemon.js. The global `--socket` reaches the server as SPOOL_SOCKET.
 */
import type { Command } from 'commander';
import { action } from '../action';
import { runBundle } from '../bundle';

export function registerLsp(program: Command): void {
  program
    .command('lsp')
    .description('Run the language server of spool.jsonc (completion, checks, hover, code lenses) for any LSP editor')
    .option('--stdio', 'talk LSP over stdin and stdout (the only transport; the flag is accepted because editors pass it)')
    .addHelpText(
      'after',
      `
Examples:
  spool lsp --stdio                         what an editor runs
  spool --socket /tmp/test.sock lsp --stdio  live data from another daemon`,
    )
    .action(action((ctx) => runBundle(ctx, 'lsp.js', ['--stdio'])));
}
