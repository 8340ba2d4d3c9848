/** Validation of `stats.history`'s params: every refusal names the field and says what is allowed. */
import { integer, name as validName, object, oneOf } from '../../../shared/domain/validate';
import { invalidParams } from '../../../shared/protocol/errors';
import { HOUR_MS, MINUTE_MS } from '../history';
import type { HistoryQuery } from '../ops/history';

/** Most points per queue in one answer: a week of minutes. */
export const MAX_HISTORY_POINTS = 10_080;

export function statsHistoryParams(params: unknown): HistoryQuery {
  const o = object(params, 'params', ['queue', 'from', 'to', 'step']);
  const step = oneOf(o['step'], 'step', ['minute', 'hour'] as const);
  const stepMs = step === 'minute' ? MINUTE_MS : HOUR_MS;
  const from = Math.floor(integer(o['from'], 'from', 0, Number.MAX_SAFE_INTEGER) / stepMs) * stepMs;
  const to = Math.floor(integer(o['to'], 'to', 0, Number.MAX_SAFE_INTEGER) / stepMs) * stepMs;
  if (to < from) throw invalidParams('to', `to (${to}) is before from (${from}): give a range where to is at or after from (epoch ms).`);
  if ((to - from) / stepMs > MAX_HISTORY_POINTS) {
    throw invalidParams('to', `to is ${(to - from) / stepMs} ${step}s after from: at most ${MAX_HISTORY_POINTS} ${step}s per call; ask for a shorter range or step "hour".`);
  }
  const queue = o['queue'] === undefined ? null : validName(o['queue'], 'queue');
  return { queue, from, to, step };
}
