/**
 * Waiting for a condition in tests: poll it with a deadline, never sleep a fixed time.
 */
import { setTimeout as delay } from 'node:timers/promises';

export async function waitFor(condition: () => boolean, options: { timeoutMs?: number; intervalMs?: number; what: string }): Promise<void> {
  const deadline = Date.now() + (options.timeoutMs ?? 10_000);
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${options.timeoutMs ?? 10_000} ms waiting for ${options.what}`);
    await delay(options.intervalMs ?? 20);
  }
}
