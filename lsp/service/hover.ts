/**
 * Hover: on a cron, the expression in words and its next five fire times in the schedule's time
 * zone, the ones a daylight-saving change moves marked; on a queue (its key or a template's
 * `queue`), its settings and live counts; on a schedule's `template`, the template; on a
 * workflow's step, what it waits for and what waits for it; on any other key, the field's
 * documentation from the field table.
 */
import { getLocation } from 'jsonc-parser';
import type { Hover, MarkupContent, Position } from 'vscode-languageserver-types';
import { effectiveBackoff, formatBackoff, NEW_QUEUE_BACKOFF, parseBackoff } from '../../shared/domain/backoff';
import { formatDuration } from '../../shared/domain/durations';
import type { Backoff } from '../../shared/protocol/types';
import { describeCron, DEFAULT_TIMEZONE, nextFireTimes, parseCron, timezoneProblem } from '../../shared/domain/cron';
import { nextMatchingWall } from '../../shared/domain/cron/next';
import { utcOffset } from '../../shared/domain/cron/zone';
import { fireTime } from '../../shared/domain/present';
import { fieldAt, type DeclaredTemplate } from '../../shared/jobsfile';
import { memberValue, nodeAt, nodeAtPath, offsetAt, rangeAt, stringValue, type JobsDocument } from './document';
import { liveCountsText, type LiveData } from './live';
import { hoveredStep, stepHover } from './workflows';

/** How many fire times a cron's hover lists. */
export const NEXT_RUNS = 5;

/** One fire time as hover shows it. */
export interface FireTime {
  at: number;
  /** The time in the schedule's zone, e.g. "Sun 29 Mar 2026 03:00 CEST". */
  text: string;
  /** Set when a daylight-saving change moved it off the time the expression names. */
  moved: boolean;
}

/** The hover at `position`, or null when there is nothing to say. `now`: epoch ms, for fire times. */
export function hover(doc: JobsDocument, position: Position, live: LiveData, now: number): Hover | null {
  const offset = offsetAt(doc, position);
  const node = nodeAt(doc, offset);
  if (node === undefined) return null;
  const location = getLocation(doc.text, offset);
  const path = location.path.filter((p): p is string | number => p !== undefined);
  const [section, name, field] = path;
  const range = rangeAt(doc, node.offset, node.length);

  // A cron value.
  if (section === 'schedules' && typeof name === 'string' && field === 'cron' && path.length === 3 && !location.isAtPropertyKey) {
    const cron = stringValue(node);
    if (cron === undefined) return null;
    const timezone = stringValue(memberValue(nodeAtPath(doc, ['schedules', name]), 'timezone')) ?? DEFAULT_TIMEZONE;
    return { contents: markdown(cronHover(cron, timezone, now)), range };
  }
  // A backoff value: what it is in effect, its missing parts filled in.
  if ((section === 'queues' || section === 'templates') && typeof name === 'string' && field === 'backoff' && path.length === 3 && !location.isAtPropertyKey) {
    const text = stringValue(node);
    const value = text === undefined ? null : backoffHover(doc, section, name, text);
    return value === null ? null : { contents: markdown(value), range };
  }
  // A queue: its key under "queues", or a template's "queue".
  const queueName =
    section === 'queues' && typeof name === 'string' && path.length === 2 && location.isAtPropertyKey
      ? name
      : section === 'templates' && field === 'queue' && path.length === 3 && !location.isAtPropertyKey
        ? stringValue(node)
        : undefined;
  if (queueName !== undefined) return { contents: markdown(queueHover(doc, queueName, live)), range };
  // A schedule's template.
  if (section === 'schedules' && field === 'template' && path.length === 3 && !location.isAtPropertyKey) {
    const templateName = stringValue(node);
    if (templateName === undefined) return null;
    return { contents: markdown(templateHover(doc, templateName)), range };
  }
  // A workflow's step (its key, or its name in a `needs`): where it sits in the graph.
  const step = hoveredStep(path, location.isAtPropertyKey, stringValue(node));
  if (step !== undefined) return { contents: markdown(stepHover(doc, step.workflow, step.step)), range };
  // Any other key: its documentation.
  if (location.isAtPropertyKey) {
    const spec = fieldAt(path);
    if (spec === undefined) return null;
    return { contents: markdown(`**${String(path[path.length - 1])}** — ${spec.description}`), range };
  }
  return null;
}

function markdown(value: string): MarkupContent {
  return { kind: 'markdown', value };
}

/**
 * What a backoff is in effect: "fixed:10s" keeps the cap and the jitter of its queue's backoff
 * (fixed:10s:1h:0.3 on a new queue), which the text alone does not show. Null when the text does
 * not read as a backoff (the diagnostic says why).
 */
export function backoffHover(doc: JobsDocument, section: 'queues' | 'templates', name: string, text: string): string | null {
  const given = parseBackoff(text);
  if (!given.ok) return null;
  let defaults: Backoff = NEW_QUEUE_BACKOFF;
  let source = 'the backoff of a new queue';
  if (section === 'templates') {
    const queue = stringValue(memberValue(nodeAtPath(doc, ['templates', name]), 'queue'));
    const declared = queue === undefined ? undefined : stringValue(memberValue(nodeAtPath(doc, ['queues', queue]), 'backoff'));
    const queueBackoff = declared === undefined ? undefined : parseBackoff(declared);
    if (queueBackoff?.ok === true && queue !== undefined) {
      defaults = effectiveBackoff(queueBackoff.value, NEW_QUEUE_BACKOFF);
      source = `the backoff of queue ${queue} in this file`;
    } else {
      source = queue === undefined ? source : `the backoff of queue ${queue} (a new queue's, unless the queue on the daemon has its own)`;
    }
  }
  const effect = effectiveBackoff(given.value, defaults);
  const missing = (['baseMs', 'capMs', 'jitter'] as const).filter((k) => given.value[k] === undefined).map((k) => (k === 'baseMs' ? 'base' : k === 'capMs' ? 'cap' : 'jitter'));
  const shown = `\`${formatBackoff(effect)}\``;
  if (missing.length === 0) return `**Backoff** ${shown}: ${effect.strategy}, from ${formatDuration(effect.baseMs)} up to ${formatDuration(effect.capMs)}, ±${Math.round(effect.jitter * 100)}%.`;
  const words = missing.length === 1 ? missing[0] : `${missing.slice(0, -1).join(', ')} and ${missing[missing.length - 1]}`;
  return `**In effect:** ${shown} — the ${words} come${missing.length === 1 ? 's' : ''} from ${source}${effect.jitter > 0 && given.value.jitter === undefined ? `, so the waits vary by ±${Math.round(effect.jitter * 100)}%` : ''}.`;
}

/** Text shown as itself in Markdown: its punctuation (`*`, `_`, backquotes, brackets…) escaped. */
export function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_[\]<>]/g, (c) => `\\${c}`);
}

/** A cron's hover text: words, then the next runs, or why there are none. */
export function cronHover(cron: string, timezone: string, now: number): string {
  const parsed = parseCron(cron);
  if (!parsed.ok) {
    // Said once (the expression is the hover's subject, not repeated in the reason), and escaped:
    // "*, a range …(*/10)" read as Markdown emphasis ("it takes 0-23, , *a range…*").
    const prefix = /^Invalid cron expression "[^"]*": /;
    return `**Not a valid cron expression.** ${escapeMarkdown(parsed.problem.message.replace(prefix, ''))}`;
  }
  const lines = [`**${describeCron(cron)}** (${timezone})`, ''];
  if (timezoneProblem(timezone) !== null) {
    lines.push(`Next runs unknown: the time zone "${timezone}" is not one the runtime knows.`);
    return lines.join('\n');
  }
  const times = fireTimes(cron, timezone, now, NEXT_RUNS);
  if (times.length === 0) {
    lines.push('It never fires.');
    return lines.join('\n');
  }
  lines.push(`Next ${times.length} run${times.length === 1 ? '' : 's'}:`, '');
  for (const t of times) lines.push(`- ${t.text}${t.moved ? ' — moved by a daylight-saving change (the time it names is skipped that day)' : ''}`);
  return lines.join('\n');
}

/**
 * The next `count` fire times after `now` in `timezone`, as words, with those a DST change moved
 * marked: a fixed-time job whose time falls in a skipped hour runs right after the change, at a
 * wall-clock time the expression does not name.
 */
export function fireTimes(cron: string, timezone: string, now: number, count: number): FireTime[] {
  const parsed = parseCron(cron);
  if (!parsed.ok || timezoneProblem(timezone) !== null) return [];
  let times: number[];
  try {
    times = nextFireTimes({ cron, timezone }, now, count);
  } catch {
    return [];
  }
  return times.map((at) => {
    const wall = at + utcOffset(timezone, at);
    // The wall-clock time matches the expression unless a change moved it.
    const moved = nextMatchingWall(parsed.cron, wall, wall) === null;
    return { at, text: fireTime(at, timezone, { seconds: parsed.cron.hasSeconds }), moved };
  });
}

/** A queue's hover: where it is declared, and its live counts when a daemon answered. */
function queueHover(doc: JobsDocument, name: string, live: LiveData): string {
  const declared = doc.parse.partial.queues.find((q) => q.name === name);
  const lines = [`**Queue ${name}**${declared === undefined ? ' (not declared in this file)' : ''}`];
  if (live.queues !== undefined) {
    const queue = live.queues.find((q) => q.name === name);
    lines.push('', queue === undefined ? 'Not on the daemon yet: apply creates it (or the first job does).' : `On the daemon: ${liveCountsText(queue, { completed: true })}`);
  }
  return lines.join('\n');
}

/** A template's hover: what it runs, where, and its parameters. */
function templateHover(doc: JobsDocument, name: string): string {
  const template = doc.parse.partial.templates.find((t) => t.name === name);
  if (template === undefined) {
    const located = doc.parse.locations.some((l) => l.type === 'template' && l.name === name);
    return located ? `**Template ${name}** (has errors; fix them to see it here)` : `**Template ${name}**: not declared in this file.`;
  }
  return templateText(template);
}

/** A template in a few lines of markdown. */
export function templateText(t: DeclaredTemplate): string {
  const lines = [`**Template ${t.name}** — ${t.kind} job on queue \`${t.queue}\``];
  if (t.description !== undefined) lines.push('', t.description);
  const payload = t.payload as Record<string, unknown> | null;
  if (t.kind === 'shell' && typeof payload?.['command'] === 'string') lines.push('', '```sh', payload['command'], '```');
  else if (t.kind === 'http' && typeof payload?.['url'] === 'string') lines.push('', `\`${String(payload['method'] ?? 'GET')} ${payload['url']}\``);
  else lines.push('', '```json', JSON.stringify(t.payload, null, 2) ?? 'null', '```');
  const params = Object.entries(t.params);
  if (params.length > 0) {
    lines.push('', 'Parameters:');
    for (const [p, spec] of params) lines.push(`- \`${p}\`${spec.default !== undefined ? ` (default \`${spec.default}\`)` : ' (required)'}${spec.description !== undefined ? `: ${spec.description}` : ''}`);
  }
  return lines.join('\n');
}
