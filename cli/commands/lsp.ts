/**
 * `spool lsp --stdio`: the language server of spool.jsonc, for any LSP editor. Runs the server
 * program (dist/lsp.js, beside this bundle) with this process's standard streams, as `spool
 * daemon` runs dist/daemon.js: the CLI bundle stays free of the server's code, and stdout carries
 * nothing but the protocol. The global `--socket` reaches the server as SPOOL_SOCKET.
 */
import type { Command } from 'commander';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { action } from '../action';
import type { CliContext } from '../context';
import { CliError } from '../errors';

/** The server bundle: dist/lsp.js, next to dist/cli.js (or the build, when run from source). */
export function lspScriptPath(): string {
  const beside = path.join(__dirname, 'lsp.js');
  return fs.existsSync(beside) ? beside : path.resolve(__dirname, '..', '..', 'dist', 'lsp.js');
}

/** The signals an editor sends to stop its server; passed on, so the server stops with us. */
const FORWARDED: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

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
    .action(action((ctx) => runServer(ctx)));
}

function runServer(ctx: CliContext): Promise<number> {
  const script = lspScriptPath();
  if (!fs.existsSync(script)) throw new CliError(`${script} is missing. Build it first: npm run build`);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, '--stdio'], { stdio: 'inherit', env: { ...process.env, SPOOL_SOCKET: ctx.socketPath } });
    const forward = (signal: NodeJS.Signals) => () => child.kill(signal);
    const handlers = FORWARDED.map((signal) => [signal, forward(signal)] as const);
    for (const [signal, handler] of handlers) process.on(signal, handler);
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      for (const [s, handler] of handlers) process.off(s, handler);
      resolve(code ?? (signal !== null ? 128 : 1));
    });
  });
}
