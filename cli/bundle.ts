/**
 * Commands that are another program of Spool's run with this process's standard streams
 * (`spool lsp --stdio`, `spool mcp`): the program is its own bundle beside dist/cli.js, so the
 * CLI bundle stays free of its code and dependencies, and stdout carries nothing but the
 * program's protocol. The global connection options reach it as environment variables.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { CliContext } from './context';
import { CliError } from './errors';

/** A bundle such as dist/lsp.js: next to dist/cli.js, or in the build when run from source. */
export function bundlePath(name: string): string {
  const beside = path.join(__dirname, name);
  return fs.existsSync(beside) ? beside : path.resolve(__dirname, '..', 'dist', name);
}

/** The signals an editor or agent sends to stop its server; passed on, so the server stops with us. */
const FORWARDED: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/** Runs bundle `name` with `args` until it exits; resolves to its exit status. */
export function runBundle(ctx: CliContext, name: string, args: string[]): Promise<number> {
  const script = bundlePath(name);
  if (!fs.existsSync(script)) throw new CliError(`${script} is missing. Build it first: npm run build`);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], { stdio: 'inherit', env: { ...process.env, ...ctx.connectionEnv() } });
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
