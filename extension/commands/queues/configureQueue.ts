/**
 * Configure a queue: concurrency and rate limit, asked one after the other with the current
 * values filled in. An empty answer removes the limit. Called with a `ConfigureQueueParams`
 * object it applies it directly.
 */
import * as vscode from 'vscode';
import type { Parsed } from '../../../shared/domain/parsed';
import { formatRate, parseRate } from '../../../shared/domain/rates';
import { concurrencyText } from '../../../shared/domain/rules/options';
import type { ConfigureQueueParams } from '../../../shared/protocol';
import type { Queue, RateLimit } from '../../../shared/protocol/types';
import { command } from '../command';
import { queueTarget } from '../targets';
import { warnIfOwned } from '../../ownedWarning';

/**
 * The rate limit typed in the input box, in the syntax the CLI and the jobs file share
 * (`10/s`, `600/m`, `10/s burst 20`, `off`); empty also means no limit, as the prompt says.
 */
export function parseRateInput(text: string): Parsed<RateLimit | null> {
  if (text.trim() === '') return { ok: true, value: null };
  const rate = parseRate(text);
  return rate.ok ? rate : { ok: false, message: `${capitalized(rate.message)}, or leave it empty for no limit.` };
}

/**
 * The concurrency typed in the input box, held to the daemon's bound and refused in its words;
 * empty means no limit, as the prompt says.
 */
export function parseConcurrencyInput(text: string): Parsed<number | null> {
  if (text.trim() === '') return { ok: true, value: null };
  const concurrency = concurrencyText(text);
  return concurrency.ok ? concurrency : { ok: false, message: `${capitalized(concurrency.message)}, or leave it empty for no limit.` };
}

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function isConfigureParams(value: unknown): value is ConfigureQueueParams {
  return typeof value === 'object' && value !== null && 'name' in value && typeof value.name === 'string';
}

export const configureQueue = command('spool.queues.configure', async (ctx, arg) => {
  const client = ctx.connection.client();
  if (isConfigureParams(arg)) {
    const { queue } = await client.call('queues.configure', arg);
    ctx.queues.refresher.now();
    return queue;
  }
  const name = await queueTarget(ctx, arg, 'Configure which queue?');
  if (!name) return undefined;
  const { queue: current } = await client.call('queues.get', { name });
  const concurrency = await vscode.window.showInputBox({
    title: `Configure ${name} (1/2)`,
    prompt: 'Concurrency: jobs of this queue running at once (empty = no limit)',
    value: current.concurrency === null ? '' : String(current.concurrency),
    validateInput: (v) => {
      const parsed = parseConcurrencyInput(v);
      return parsed.ok ? null : parsed.message;
    },
  });
  if (concurrency === undefined) return undefined;
  const concurrencyLimit = parseConcurrencyInput(concurrency);
  // The input box refuses to close on a message, so this only fails if VS Code skips validation.
  if (!concurrencyLimit.ok) throw new Error(concurrencyLimit.message);
  const rate = await vscode.window.showInputBox({
    title: `Configure ${name} (2/2)`,
    prompt: 'Rate limit: jobs started per second, minute or hour, like 10/s, 600/m or 10/s burst 20 (empty = no limit)',
    placeHolder: '10/s burst 20',
    value: current.rateLimit ? formatRate(current.rateLimit) : '',
    validateInput: (v) => {
      const rate = parseRateInput(v);
      return rate.ok ? null : rate.message;
    },
  });
  if (rate === undefined) return undefined;
  const rateLimit = parseRateInput(rate);
  // The input box refuses to close on a message, so this only fails if VS Code skips validation.
  if (!rateLimit.ok) throw new Error(rateLimit.message);
  const { queue } = await client.call('queues.configure', {
    name,
    concurrency: concurrencyLimit.value,
    rateLimit: rateLimit.value,
  });
  ctx.queues.refresher.now();
  void vscode.window.setStatusBarMessage(`Spool: ${configuredText(queue)}`, 5000);
  void warnIfOwned('queue', name, queue.owner, 'changed');
  return queue;
});

/** What a queue's limits are now, as the note after Configure says it. */
export function configuredText(queue: Pick<Queue, 'name' | 'concurrency' | 'rateLimit'>): string {
  const concurrency = queue.concurrency === null ? 'no concurrency limit' : `at most ${queue.concurrency} running at once`;
  const rate = queue.rateLimit === null ? 'no rate limit' : `at most ${formatRate(queue.rateLimit)}`;
  return `queue ${queue.name} configured: ${concurrency}, ${rate}.`;
}
