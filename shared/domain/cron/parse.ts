/**
 * Parsing of cron expressions, with Vixie/Debian cron's syntax: five fields (minute hour
 * day-of-month month day-of-week), or six with seconds first (Spool has run per-second
 * schedules from the start), or an `@` macro. Each field is `*`, a number, a name (jan-dec,
 * sun-sat), a range `a-b`, a step (`*`, `a` or `a-b` followed by `/n`; `a/n` runs from a to the
 * end of the field), or a list of those separated by commas.
 *
 * A problem is returned as a value (field, message, what is allowed, where in the text) rather
 * than thrown, so the language server can underline the field and the daemon can wrap it in its
 * own error.
 */

/** The name of a field of a cron expression, as messages say it. */
export type CronFieldName = 'second' | 'minute' | 'hour' | 'day-of-month' | 'month' | 'day-of-week';

/** What went wrong with a cron expression or its time zone. */
export interface CronProblem {
  /** The schedule field at fault: the expression or the time zone. */
  field: 'cron' | 'timezone';
  /** The cron field at fault, when one is. */
  part?: CronFieldName;
  /** A sentence a person can act on, ending with a full stop. */
  message: string;
  /** What the field accepts. */
  allowed: string;
  /** Where the fault is in the text (offsets, end exclusive); the whole text when no field is. */
  start: number;
  end: number;
}

/** A parsed cron expression: the values each field allows, and what Debian cron needs to know. */
export interface CronExpression {
  /** The text as given, trimmed. */
  text: string;
  /** The macro it came from (`@daily`), if any. */
  macro?: string;
  /** Whether there is a seconds field (six fields, or a per-second macro). */
  hasSeconds: boolean;
  second: readonly boolean[];
  minute: readonly boolean[];
  hour: readonly boolean[];
  /** Index 1-31. */
  dayOfMonth: readonly boolean[];
  /** Index 1-12. */
  month: readonly boolean[];
  /** Index 0-6, Sunday 0 (a 7 in the text is Sunday). */
  dayOfWeek: readonly boolean[];
  /**
   * Vixie cron's rule for the two day fields: when either starts with `*`, a day must match both;
   * otherwise either is enough ("0 0 1 * 1" fires on the 1st and on Mondays).
   */
  daysMatchBoth: boolean;
  /**
   * True when the minute or hour field starts with `*` (or the macro is @hourly or finer): such a
   * job follows the wall clock across daylight-saving changes (`man 8 cron`); the others are
   * "fixed-time" jobs, run once when an hour repeats and right after the change when it is skipped.
   */
  followsWallClock: boolean;
  /** The fields as written (after macro expansion), seconds first when present. */
  fields: readonly string[];
}

export type CronParse = { ok: true; cron: CronExpression } | { ok: false; problem: CronProblem };

interface FieldSpec {
  name: CronFieldName;
  low: number;
  high: number;
  names?: readonly string[];
  allowed: string;
}

const MONTH_NAMES = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const DAY_NAMES = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];
const SHAPES = 'a range (1-5), a list (1,15) or a step (*/10)';

const SECOND: FieldSpec = { name: 'second', low: 0, high: 59, allowed: `0-59, *, ${SHAPES}` };
const MINUTE: FieldSpec = { name: 'minute', low: 0, high: 59, allowed: `0-59, *, ${SHAPES}` };
const HOUR: FieldSpec = { name: 'hour', low: 0, high: 23, allowed: `0-23, *, ${SHAPES}` };
const DAY_OF_MONTH: FieldSpec = { name: 'day-of-month', low: 1, high: 31, allowed: `1-31, *, ${SHAPES}` };
const MONTH: FieldSpec = { name: 'month', low: 1, high: 12, names: MONTH_NAMES, allowed: `1-12 or jan-dec, *, ${SHAPES}` };
const DAY_OF_WEEK: FieldSpec = { name: 'day-of-week', low: 0, high: 7, names: DAY_NAMES, allowed: `0-7 (0 and 7 are Sunday) or sun-sat, *, ${SHAPES}` };

const FIVE = [MINUTE, HOUR, DAY_OF_MONTH, MONTH, DAY_OF_WEEK];
const SIX = [SECOND, ...FIVE];

/** What the whole expression accepts, for messages about its shape. */
export const CRON_ALLOWED =
  '5 fields (minute hour day-of-month month day-of-week), 6 with seconds first, or a macro (@yearly, @monthly, @weekly, @daily, @hourly, @minutely, @secondly, @weekdays, @weekends)';

/**
 * The macros, as the six-field expressions they stand for. cron-parser's set (which Spool
 * accepted before) plus Debian's @midnight; @reboot has no fire times and is refused.
 */
export const CRON_MACROS: Readonly<Record<string, string>> = {
  '@yearly': '0 0 0 1 1 *',
  '@annually': '0 0 0 1 1 *',
  '@monthly': '0 0 0 1 * *',
  '@weekly': '0 0 0 * * 0',
  '@daily': '0 0 0 * * *',
  '@midnight': '0 0 0 * * *',
  '@hourly': '0 0 * * * *',
  '@minutely': '0 * * * * *',
  '@secondly': '* * * * * *',
  '@weekdays': '0 0 0 * * 1-5',
  '@weekends': '0 0 0 * * 0,6',
};

/** Macros that Debian cron treats as wildcard jobs (`man 8 cron`: "not specified as @hourly"). */
const WALL_CLOCK_MACROS = new Set(['@hourly', '@minutely', '@secondly']);

/** Parses a cron expression; never throws. */
export function parseCron(input: string): CronParse {
  const text = input.trim();
  const lead = input.length - input.trimStart().length;
  const whole = (message: string): CronParse => ({
    ok: false,
    problem: { field: 'cron', message: `Invalid cron expression "${clip(text)}": ${message}`, allowed: CRON_ALLOWED, start: lead, end: lead + text.length },
  });
  if (text.startsWith('@')) {
    const macro = text.toLowerCase();
    const expansion = CRON_MACROS[macro];
    if (expansion === undefined) {
      const reboot = macro === '@reboot' ? ' (@reboot has no fire times; a schedule needs a time)' : '';
      return whole(`unknown macro ${text}${reboot}. Use ${Object.keys(CRON_MACROS).join(', ')}, or 5 fields.`);
    }
    // The expansions are valid, so no problem can point into them.
    const parsed = parseFields(expansion, expansion.split(' ').map((f) => ({ text: f, start: lead })), SIX, text);
    if (!parsed.ok) return parsed;
    return { ok: true, cron: { ...parsed.cron, text, macro, hasSeconds: macro === '@secondly', followsWallClock: WALL_CLOCK_MACROS.has(macro) } };
  }
  const tokens: Array<{ text: string; start: number }> = [];
  for (const m of input.matchAll(/\S+/g)) tokens.push({ text: m[0], start: m.index ?? 0 });
  if (tokens.length !== 5 && tokens.length !== 6) {
    return whole(`it has ${tokens.length} field${tokens.length === 1 ? '' : 's'}; use 5 (minute hour day-of-month month day-of-week), 6 with seconds first, or a macro such as @daily.`);
  }
  return parseFields(text, tokens, tokens.length === 6 ? SIX : FIVE, text);
}

function parseFields(text: string, tokens: ReadonlyArray<{ text: string; start: number }>, specs: readonly FieldSpec[], shown: string): CronParse {
  const sets = new Map<CronFieldName, boolean[]>();
  const stars = new Map<CronFieldName, boolean>();
  for (let i = 0; i < specs.length; i++) {
    const spec = specs[i];
    const token = tokens[i];
    const result = parseField(token.text, spec);
    if (typeof result === 'string') {
      const label = spec.name.replace(/-/g, ' ');
      return {
        ok: false,
        problem: {
          field: 'cron',
          part: spec.name,
          message: `Invalid cron expression "${clip(shown)}": ${result} in the ${label} field "${clip(token.text)}"; it takes ${spec.allowed}.`,
          allowed: `${label}: ${spec.allowed}`,
          start: token.start,
          end: token.start + token.text.length,
        },
      };
    }
    sets.set(spec.name, result);
    stars.set(spec.name, token.text.startsWith('*'));
  }
  const get = (name: CronFieldName, size: number, fill: boolean): boolean[] => sets.get(name) ?? new Array<boolean>(size).fill(fill);
  const dayOfWeek = get('day-of-week', 8, false);
  // Sunday is 0 and 7; matching looks at 0-6 only.
  if (dayOfWeek[7]) dayOfWeek[0] = true;
  const second = sets.get('second') ?? Array.from({ length: 60 }, (_, s) => s === 0);
  return {
    ok: true,
    cron: {
      text,
      hasSeconds: specs.length === 6,
      second,
      minute: get('minute', 60, false),
      hour: get('hour', 24, false),
      dayOfMonth: get('day-of-month', 32, false),
      month: get('month', 13, false),
      dayOfWeek: dayOfWeek.slice(0, 7),
      daysMatchBoth: stars.get('day-of-month') === true || stars.get('day-of-week') === true,
      followsWallClock: stars.get('minute') === true || stars.get('hour') === true,
      fields: tokens.map((t) => t.text),
    },
  };
}

/** The values a field allows, or the reason it is wrong (a phrase, no full stop). */
function parseField(text: string, spec: FieldSpec): boolean[] | string {
  const set = new Array<boolean>(spec.high + 1).fill(false);
  for (const element of text.split(',')) {
    if (element === '') return 'an empty element (two commas, or one at an end)';
    const reason = parseElement(element, spec, set);
    if (reason !== null) return reason;
  }
  return set;
}

function parseElement(element: string, spec: FieldSpec, set: boolean[]): string | null {
  const slash = element.indexOf('/');
  const range = slash === -1 ? element : element.slice(0, slash);
  let step = 1;
  if (slash !== -1) {
    const stepText = element.slice(slash + 1);
    if (!/^\d+$/.test(stepText) || Number(stepText) < 1) return `the step "${stepText}" of "${element}" is not a whole number from 1 up`;
    step = Number(stepText);
  }
  let low: number;
  let high: number;
  if (range === '*') {
    [low, high] = [spec.low, spec.high];
  } else {
    const dash = range.indexOf('-');
    const first = value(dash === -1 ? range : range.slice(0, dash), spec);
    if (typeof first === 'string') return first;
    low = first;
    if (dash === -1) {
      // "a/n" runs from a to the end of the field, as Vixie cron's descendants read it.
      high = slash === -1 ? low : spec.high;
    } else {
      const second = value(range.slice(dash + 1), spec);
      if (typeof second === 'string') return second;
      high = second;
      if (high < low) return `the range ${range} runs backwards (write the smaller value first, or use a list)`;
    }
  }
  for (let v = low; v <= high; v += step) set[v] = true;
  return null;
}

function value(text: string, spec: FieldSpec): number | string {
  if (/^\d+$/.test(text)) {
    const n = Number(text);
    return n < spec.low || n > spec.high ? `${text} is out of range ${spec.low}-${spec.high}` : n;
  }
  const index = spec.names?.indexOf(text.toLowerCase()) ?? -1;
  if (index >= 0) return index + (spec.name === 'month' ? 1 : 0);
  if (text === '') return 'a value is missing';
  if (text === '*') return '"*" cannot be part of a range';
  return `"${text}" is not a number${spec.names ? ' or a name' : ''}`;
}

/** Shortens what a message quotes, so a pasted novel does not fill the screen. */
export function clip(text: string): string {
  return text.length > 100 ? text.slice(0, 100) + '…' : text;
}
