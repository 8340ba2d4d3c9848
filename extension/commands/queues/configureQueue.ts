/**
 * Configure a queue: a pick of its settings with their values now (concurrency, rate limit,
 * group concurrency, group rate, group weights, ageing); the one picked is asked for in an input
 * box with its value filled in, applied, and the pick shows again with the new values until it
 * is closed. An empty answer removes the setting. Called with a `ConfigureQueueParams` object it
 * applies it directly.
 */
import * as vscode from 'vscode';
import type { ConfigureQueueParams } from '../../../shared/protocol';
import { command } from '../command';
import { queueTarget } from '../targets';
import { warnIfOwned } from '../../ownedWarning';
import { QUEUE_SETTINGS, configuredText, settingValueText, type QueueSetting } from './queueSettings';

function isConfigureParams(value: unknown): value is ConfigureQueueParams {
  return typeof value === 'object' && value !== null && 'name' in value && typeof value.name === 'string';
}

type SettingItem = vscode.QuickPickItem & { setting: QueueSetting };

export const configureQueue = command('spool.queues.configure', async (ctx, arg) => {
  const client = ctx.connection.client();
  if (isConfigureParams(arg)) {
    const { queue } = await client.call('queues.configure', arg);
    ctx.queues.refresher.now();
    return queue;
  }
  const name = await queueTarget(ctx, arg, 'Configure which queue?');
  if (!name) return undefined;
  let queue = (await client.call('queues.get', { name })).queue;
  let changed = false;
  for (;;) {
    const current = queue;
    const items: SettingItem[] = QUEUE_SETTINGS.map((setting) => ({ label: setting.label, description: settingValueText(setting, current), setting }));
    const picked = await vscode.window.showQuickPick(items, { title: `Configure ${name}`, placeHolder: changed ? `${configuredText(queue)} Pick another setting, or press Escape when done.` : 'Pick a setting to change' });
    if (!picked) break;
    const { setting } = picked;
    const answer = await vscode.window.showInputBox({
      title: `Configure ${name}: ${setting.label}`,
      prompt: setting.prompt,
      placeHolder: setting.placeHolder,
      value: setting.current(queue),
      validateInput: (v) => {
        const parsed = setting.parse(v);
        return parsed.ok ? null : parsed.message;
      },
    });
    if (answer === undefined) continue;
    const change = setting.parse(answer);
    // The input box refuses to close on a message, so this only fails if VS Code skips validation.
    if (!change.ok) throw new Error(change.message);
    queue = (await client.call('queues.configure', { name, ...change.value })).queue;
    changed = true;
    ctx.queues.refresher.now();
  }
  if (!changed) return undefined;
  void vscode.window.setStatusBarMessage(`Spool: ${configuredText(queue)}`, 5000);
  void warnIfOwned('queue', name, queue.owner, 'changed');
  return queue;
});
