/** `spool rpc <method> [params]`: any daemon method, raw. */
import type { Command } from 'commander';
import { SpoolError } from '../../shared/protocol/errors';
import { ErrorCode, METHOD_NAMES } from '../../shared/protocol';
import { action, arg } from '../action';
import { parseDuration } from '../parse/duration';
import { parseJsonArgument } from '../parse/values';
import { closest } from '../../shared/domain/present';

export function registerRpc(program: Command): void {
  program
    .command('rpc')
    .description('Call any daemon method with JSON params; prints the result, or the error object with exit status 1')
    .argument('<method>', 'the method, e.g. queues.list (see the list below)')
    .argument('[params]', 'params as JSON, @file to read a file, or - for stdin (default {})')
    .option('--timeout <duration>', 'fail if no answer within this long, e.g. 90s (default 30s; 0 waits forever)')
    .addHelpText(
      'after',
      `
Examples:
  spool rpc daemon.status
  spool rpc jobs.enqueue '{"queue":"default","kind":"shell","payload":{"command":"date"}}'
  spool rpc jobs.list '{"states":["dead"],"limit":5}'
  echo '{"name":"default"}' | spool rpc queues.pause -

Methods:
${METHOD_NAMES.map((m) => `  ${m}`).join('\n')}`,
    )
    .action(
      action<{ timeout?: string }>(async (ctx, args, o) => {
        const method = arg(args, 0);
        const raw = args[1];
        const params = typeof raw === 'string' ? await parseJsonArgument(raw, 'params') : undefined;
        const client = await ctx.client();
        const options = o.timeout !== undefined ? { timeoutMs: parseDuration(o.timeout, '--timeout') } : {};
        try {
          const result = await client.callUnchecked(method, params, options);
          ctx.printJson(result);
          return 0;
        } catch (error) {
          if (!(error instanceof SpoolError)) throw error;
          // The daemon's error object as it came over the wire, for scripts to inspect.
          ctx.printJson({ error: error.toJSON() });
          ctx.note(`spool: ${error.message}`);
          if (error.code === ErrorCode.MethodNotFound) {
            const near = closest(method, METHOD_NAMES);
            ctx.note(near !== undefined ? `Did you mean ${near}? (spool rpc --help lists every method)` : 'spool rpc --help lists every method.');
          }
          return 1;
        }
      }),
    );
}
