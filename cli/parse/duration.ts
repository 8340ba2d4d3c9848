/**
 * Durations and backoff from the command line. The syntax is shared/domain's, the same in the
 * extension and the jobs file (docs/cli.md, "Durations, rates and backoff"); this file only
 * names the option at fault in the CLI's one-line error.
 */
import * as backoff from '../../shared/domain/backoff';
import * as durations from '../../shared/domain/durations';
import type { Backoff } from '../../shared/protocol/types';
import { MAX_KILL_GRACE_MS } from '../../shared/client/daemonOptions';
import { CliError } from '../errors';

/** Milliseconds in `text`; `what` names the option in the error. */
export function parseDuration(text: string, what: string): number {
  const ms = durations.parseDuration(text);
  if (!ms.ok) throw new CliError(`Invalid duration "${text}" for ${what}: ${ms.message}.`);
  return ms.value;
}

/** `--kill-after` (of `spool daemon` and `spool work`): how long SIGTERM gets before SIGKILL, at most an hour. */
export function parseKillAfter(text: string): number {
  const ms = parseDuration(text, '--kill-after');
  if (ms > MAX_KILL_GRACE_MS) throw new CliError(`--kill-after ${text} is too long: at most ${MAX_KILL_GRACE_MS / 3_600_000}h.`);
  return ms;
}

/** `strategy[:base[:cap[:jitter]]]`; fields left out come from the queue's default backoff. */
export function parseBackoff(text: string, what = '--backoff'): Partial<Backoff> {
  const b = backoff.parseBackoff(text);
  if (!b.ok) throw new CliError(`Invalid backoff "${text}" for ${what}: ${b.message}.`);
  return b.value;
}
