/**
 * Configure a queue: concurrency and rate limit, asked one after the other with the current
 * values filled in. An empty answer removes the limit. Called with a `ConfigureQueueParams`
 * object it applies it directly.
 */
import * as vscode from 'vscode';
import type { ConfigureQueueParams } from '../../../shared/protocol';
import type { RateLimit } from '../../../shared/types';
import { command } from '../command';
import { queueTarget } from '../targets';

/** "10/s" or "10/s burst 20" → rate limit; "" → none. */
export function parseRate(text: string): RateLimit | null {
  const t = text.trim();
  if (t === '') return null;
  const m = /^(\d+(?:\.\d+)?)\s*\/\s*s(?:\s+burst\s+(\d+))?$/.exec(t);
  if (!m) throw new Error('Write a rate as "10/s" or "10/s burst 20", or leave it empty for no limit.');
  const perSecond = Number(m[1]);
  return { perSecond, burst: m[2] !== undefined ? Number(m[2]) : Math.max(1, Math.ceil(perSecond)) };
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
    validateInput: (v) => (v.trim() === '' || /^[1-9]\d*$/.test(v.trim()) ? null : 'A whole number of 1 or more, or empty.'),
  });
  if (concurrency === undefined) return undefined;
  const rate = await vscode.window.showInputBox({
    title: `Configure ${name} (2/2)`,
    prompt: 'Rate limit: jobs started per second (empty = no limit)',
    placeHolder: '10/s burst 20',
    value: current.rateLimit ? `${current.rateLimit.perSecond}/s burst ${current.rateLimit.burst}` : '',
    validateInput: (v) => {
      try {
        parseRate(v);
        return null;
      } catch (error) {
        return error instanceof Error ? error.message : String(error);
      }
    },
  });
  if (rate === undefined) return undefined;
  const { queue } = await client.call('queues.configure', {
    name,
    concurrency: concurrency.trim() === '' ? null : Number(concurrency),
    rateLimit: parseRate(rate),
  });
  ctx.queues.refresher.now();
  return queue;
});
