/**
 * `spool token create|list|revoke`: access tokens for clients over the network (`spool daemon
 * --listen`). Only over the daemon's Unix socket, on its own machine: a token over TCP cannot
 * make more tokens.
 */
import type { Command } from 'commander';
import * as fs from 'node:fs';
import { TOKEN_SCOPES, type TokenScope } from '../../shared/protocol';
import { action, arg } from '../action';
import type { CliContext } from '../context';
import { CliError } from '../errors';
import { renderTable } from '../format/table';
import { formatTimestamp } from '../format/time';

function localOnly(ctx: CliContext): void {
  if (ctx.target() !== null) {
    throw new CliError("Tokens are managed on the daemon's machine, over its Unix socket: run `spool token …` there, without --endpoint (or SPOOL_ENDPOINT).");
  }
}

export function registerToken(program: Command): void {
  const token = program
    .command('token')
    .description('Access tokens for clients over the network (spool daemon --listen); on the daemon\'s machine only')
    .addHelpText(
      'after',
      '\nExamples:\n  spool token create ci --scope worker --out ci.token\n  spool token create viewer --scope read --json\n  spool token list\n  spool token revoke ci',
    );

  token
    .command('create')
    .description('Make a token and print it, once: the daemon keeps only its hash')
    .argument('<name>', 'a name for the token, to list and revoke it by')
    .requiredOption('--scope <scope>', `what it may do: ${TOKEN_SCOPES.join(', ')} (read only reads; worker also enqueues and works jobs; admin everything)`)
    .option('--json', 'print {"token": …} as JSON')
    .option('--out <file>', 'write the token to this new file (mode 0600) instead of printing it')
    .action(
      action<{ scope: string; json?: boolean; out?: string }>(async (ctx, args, o) => {
        localOnly(ctx);
        if (!(TOKEN_SCOPES as readonly string[]).includes(o.scope)) throw new CliError(`Unknown --scope "${o.scope}": use ${TOKEN_SCOPES.join(', ')}.`);
        if (o.out !== undefined && fs.existsSync(o.out)) throw new CliError(`--out: ${o.out} exists already; pick a new file (a token file is never overwritten).`);
        const created = await (await ctx.client()).call('tokens.create', { name: arg(args, 0), scope: o.scope as TokenScope });
        if (o.out !== undefined) {
          // Created 0600 ('wx' fails rather than write into a file someone else made meanwhile).
          fs.writeFileSync(o.out, created.token + '\n', { mode: 0o600, flag: 'wx' });
          ctx.note(`Token "${created.info.name}" (scope ${created.info.scope}) written to ${o.out} (mode 0600). Pass it with --token-file ${o.out}.`);
          return;
        }
        if (o.json) return ctx.printJson({ token: created.token });
        ctx.print(created.token);
        ctx.note(`Token "${created.info.name}" (scope ${created.info.scope}) made. It is shown only now: keep it in a file only you can read (chmod 600), and pass it with --token-file or SPOOL_TOKEN.`);
      }),
    );

  token
    .command('list')
    .description('List the tokens: name, scope and when each was made (never the tokens)')
    .option('--json', 'print {tokens} as JSON')
    .action(
      action<{ json?: boolean }>(async (ctx, _args, o) => {
        localOnly(ctx);
        const result = await (await ctx.client()).call('tokens.list');
        if (o.json) return ctx.printJson(result);
        if (result.tokens.length === 0) return ctx.note('No tokens. Make one: spool token create NAME --scope read|worker|admin');
        ctx.print(
          renderTable(
            result.tokens,
            [
              { header: 'NAME', value: (t) => t.name },
              { header: 'SCOPE', value: (t) => t.scope },
              { header: 'CREATED', value: (t) => formatTimestamp(t.createdAt) },
            ],
            ctx.colors.dim,
          ),
        );
      }),
    );

  token
    .command('revoke')
    .description('Delete a token; connections logged in with it are closed')
    .argument('<name>', 'the token\'s name')
    .action(
      action(async (ctx, args) => {
        localOnly(ctx);
        const name = arg(args, 0);
        await (await ctx.client()).call('tokens.revoke', { name });
        ctx.print(`Revoked token "${name}".`);
      }),
    );
}
