/**
 * A queue's settings as Configure Queue asks for them, one input box each: what the box shows
 * (the current value, in the syntax the CLI and spool.jsonc share), and how a typed answer is
 * read and refused in the extension's words. Pure, for the command and its tests.
 */
import { parseDuration } from '../../../shared/domain/durations';
import type { Parsed } from '../../../shared/domain/parsed';
import { formatRate, parseRate } from '../../../shared/domain/rates';
import { GROUP_RULE } from '../../../shared/domain/rules/jobs';
import { concurrencyText } from '../../../shared/domain/rules/options';
import { LIMITS, type ConfigureQueueParams } from '../../../shared/protocol';
import type { Queue, RateLimit } from '../../../shared/protocol/types';

/** The changes one setting's answer makes. */
export type SettingChange = Omit<ConfigureQueueParams, 'name'>;

export interface QueueSetting {
  /** The setting's name in the pick ("Group concurrency"). */
  label: string;
  /** The input box's prompt. */
  prompt: string;
  placeHolder: string;
  /** The current value, as the input box starts with it ('' = none). */
  current(queue: Queue): string;
  /** The answer read, or the message the input box shows. */
  parse(text: string): Parsed<SettingChange>;
}

const GROUP_KEY = /^[A-Za-z0-9:._@/-]+$/;

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

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
export function parseConcurrencyInput(text: string, field = 'concurrency'): Parsed<number | null> {
  if (text.trim() === '') return { ok: true, value: null };
  const concurrency = concurrencyText(text, field);
  return concurrency.ok ? concurrency : { ok: false, message: `${capitalized(concurrency.message)}, or leave it empty for no limit.` };
}

/** Group weights as typed: `customer:42=3, customer:7=2`; empty means plain turns. */
export function parseGroupWeightsInput(text: string): Parsed<Record<string, number> | null> {
  const parts = text.split(',').map((p) => p.trim()).filter((p) => p !== '');
  if (parts.length === 0) return { ok: true, value: null };
  if (parts.length > LIMITS.maxGroupWeights) return { ok: false, message: `${parts.length} groups are named; at most ${LIMITS.maxGroupWeights} may have a weight.` };
  const weights: Record<string, number> = {};
  for (const part of parts) {
    const at = part.lastIndexOf('=');
    if (at < 0) return { ok: false, message: `"${part}" needs a weight: write it as ${part}=3 (groups not named weigh 1).` };
    const key = part.slice(0, at).trim();
    const weight = part.slice(at + 1).trim();
    if (!GROUP_KEY.test(key) || key.length > LIMITS.maxGroupLength) return { ok: false, message: `Group key "${key}" must be ${GROUP_RULE}.` };
    if (!/^\d+$/.test(weight) || Number(weight) < 1 || Number(weight) > LIMITS.maxWeight) {
      return { ok: false, message: `The weight of ${key} must be a whole number from 1 to ${LIMITS.maxWeight} (got "${weight}").` };
    }
    if (key in weights) return { ok: false, message: `${key} is named twice: give each group one weight.` };
    weights[key] = Number(weight);
  }
  return { ok: true, value: weights };
}

/** Group weights as the input box shows them: `customer:42=3, customer:7=2`. */
export function formatGroupWeights(weights: Readonly<Record<string, number>> | null): string {
  return weights === null ? '' : Object.entries(weights).map(([key, weight]) => `${key}=${weight}`).join(', ');
}

const AGEING = /^(\d+)\s+per\s+(\S+)$/;

/** Priority ageing as typed: `1 per 10m`; empty or `off` turns it off. */
export function parseAgeingInput(text: string): Parsed<string | null> {
  const t = text.trim();
  if (t === '' || t === 'off') return { ok: true, value: null };
  const usage = 'Write ageing as N per DURATION, like 1 per 10m (a waiting job counts 1 priority higher for every 10 minutes it waits), or leave it empty for none.';
  const m = AGEING.exec(t);
  if (!m) return { ok: false, message: usage };
  const step = Number(m[1]);
  if (step < 1 || step > LIMITS.maxPriority - LIMITS.minPriority) return { ok: false, message: `The priority step must be from 1 to ${LIMITS.maxPriority - LIMITS.minPriority} (got ${m[1]}). ${usage}` };
  const every = parseDuration(m[2] ?? '');
  if (!every.ok) return { ok: false, message: `"${m[2]}" is not a duration: ${every.message}.` };
  if (every.value < 1000) return { ok: false, message: `The time in ${t} must be 1s or more.` };
  return { ok: true, value: `${step} per ${m[2]}` };
}

function mapped<T>(parsed: Parsed<T>, change: (value: T) => SettingChange): Parsed<SettingChange> {
  return parsed.ok ? { ok: true, value: change(parsed.value) } : parsed;
}

/** What Configure Queue offers, in the order it lists them. */
export const QUEUE_SETTINGS: readonly QueueSetting[] = [
  {
    label: 'Concurrency',
    prompt: 'Concurrency: jobs of this queue running at once, counted by weight (empty = no limit)',
    placeHolder: '4',
    current: (q) => (q.concurrency === null ? '' : String(q.concurrency)),
    parse: (text) => mapped(parseConcurrencyInput(text), (concurrency) => ({ concurrency })),
  },
  {
    label: 'Rate limit',
    prompt: 'Rate limit: jobs started per second, minute or hour, like 10/s, 600/m or 10/s burst 20 (empty = no limit)',
    placeHolder: '10/s burst 20',
    current: (q) => (q.rateLimit ? formatRate(q.rateLimit) : ''),
    parse: (text) => mapped(parseRateInput(text), (rateLimit) => ({ rateLimit })),
  },
  {
    label: 'Group concurrency',
    prompt: 'Group concurrency: jobs of one group (e.g. customer:42) running at once, counted by weight (empty = no limit per group)',
    placeHolder: '2',
    current: (q) => (q.groupConcurrency === null ? '' : String(q.groupConcurrency)),
    parse: (text) => mapped(parseConcurrencyInput(text, 'group concurrency'), (groupConcurrency) => ({ groupConcurrency })),
  },
  {
    label: 'Group rate',
    prompt: 'Group rate: jobs of one group started per second, minute or hour, like 5/s or 60/m burst 10 (empty = no rate per group)',
    placeHolder: '5/s',
    current: (q) => (q.groupRate ? formatRate(q.groupRate) : ''),
    parse: (text) => mapped(parseRateInput(text), (groupRate) => ({ groupRate })),
  },
  {
    label: 'Group weights',
    prompt: 'Group weights: turns each group gets, like customer:42=3, customer:7=2 (groups not named weigh 1; empty = plain turns)',
    placeHolder: 'customer:42=3, customer:7=2',
    current: (q) => formatGroupWeights(q.groupWeights),
    parse: (text) => mapped(parseGroupWeightsInput(text), (groupWeights) => ({ groupWeights })),
  },
  {
    label: 'Ageing',
    prompt: 'Ageing: a waiting job counts higher in priority the longer it waits, like 1 per 10m (empty = off)',
    placeHolder: '1 per 10m',
    current: (q) => q.ageing ?? '',
    parse: (text) => mapped(parseAgeingInput(text), (ageing) => ({ ageing })),
  },
];

/** A setting's current value as the pick describes it: the value, or "none". */
export function settingValueText(setting: QueueSetting, queue: Queue): string {
  const value = setting.current(queue);
  if (value !== '') return value;
  return setting.label === 'Ageing' ? 'off' : setting.label === 'Group weights' ? 'plain turns' : 'no limit';
}

/** What a queue's limits are now, as the note after Configure says it. */
export function configuredText(queue: Pick<Queue, 'name' | 'concurrency' | 'rateLimit' | 'groupConcurrency' | 'groupRate' | 'ageing'>): string {
  const parts = [
    queue.concurrency === null ? 'no concurrency limit' : `at most ${queue.concurrency} running at once`,
    queue.rateLimit === null ? 'no rate limit' : `at most ${formatRate(queue.rateLimit)}`,
  ];
  if (queue.groupConcurrency !== null) parts.push(`at most ${queue.groupConcurrency} running per group`);
  if (queue.groupRate !== null) parts.push(`at most ${formatRate(queue.groupRate)} per group`);
  if (queue.ageing) parts.push(`ageing ${queue.ageing}`);
  return `queue ${queue.name} configured: ${parts.join(', ')}.`;
}
