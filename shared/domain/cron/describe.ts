/**
 * A cron expression in words, for the extension's Schedules view, the CLI and hover in the
 * language server: "at 03:00 every day", "every 15 minutes, Monday to Friday". Built from the
 * parsed values, so "0 3 * * *", "0 3 * * 0-7" and "00 03 * * *" read the same.
 */
import type { CronExpression } from './parse';

const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = ['', 'January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** The allowed values of a field as a list of numbers. */
function values(set: readonly boolean[], low: number): number[] {
  const out: number[] = [];
  for (let i = low; i < set.length; i++) if (set[i]) out.push(i);
  return out;
}

/** Whether every value of the field is allowed. */
function all(set: readonly boolean[], low: number): boolean {
  return values(set, low).length === set.length - low;
}

/** The step n when the values are exactly low, low+n, low+2n… to the end (n > 1), else null. */
function everyNth(set: readonly boolean[], low: number): number | null {
  const v = values(set, low);
  if (v.length < 2 || v[0] !== low) return null;
  const n = v[1] - v[0];
  for (let i = 1; i < v.length; i++) if (v[i] - v[i - 1] !== n) return null;
  return v[v.length - 1] + n >= set.length ? n : null;
}

/** "1, 2 and 5", "Monday to Friday" for consecutive runs of three or more. */
function list(v: readonly number[], name: (n: number) => string): string {
  const parts: string[] = [];
  for (let i = 0; i < v.length; ) {
    let j = i;
    while (j + 1 < v.length && v[j + 1] === v[j] + 1) j++;
    if (j - i >= 2) parts.push(`${name(v[i])} to ${name(v[j])}`);
    else for (let k = i; k <= j; k++) parts.push(name(v[k]));
    i = j + 1;
  }
  return joinAnd(parts);
}

/** "a", "a and b", "a, b and c". */
function joinAnd(parts: readonly string[]): string {
  return parts.length <= 1 ? (parts[0] ?? '') : `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}`;
}

const two = (n: number): string => String(n).padStart(2, '0');

/**
 * The cron expression in words. Fixed times keep the wording the extension's Schedules view has
 * shown from the start ("every day at 03:00", "weekdays at 09:00", "every Monday at 09:00");
 * frequent ones name the days after ("every 15 minutes, Monday to Friday").
 */
export function describeExpression(cron: CronExpression): string {
  const time = timePhrase(cron);
  const { days, months } = dayParts(cron, time.fixed);
  const inMonths = months === '' ? '' : `, ${months}`;
  if (time.fixed) return /^(every|weekdays)/.test(days) ? `${days} ${time.text}${inMonths}` : `${time.text} ${days}${inMonths}`;
  if (days === '') return `${time.text}${inMonths}`;
  return `${time.text}${days.startsWith('on ') ? ' ' : ', '}${days}${inMonths}`;
}

function timePhrase(cron: CronExpression): { text: string; fixed: boolean } {
  const seconds = values(cron.second, 0);
  const minutes = values(cron.minute, 0);
  const hours = values(cron.hour, 0);
  const allMinutes = all(cron.minute, 0);
  const allHours = all(cron.hour, 0);
  const mn = everyNth(cron.minute, 0);
  const hn = everyNth(cron.hour, 0);
  const during = allHours ? '' : hn !== null ? ` of every ${hn} hours` : ` from ${hourSpan(hours)}`;
  const oneSecond = seconds.length === 1;
  if (!oneSecond) {
    // Several times a minute: the seconds, then when in the day.
    const sn = everyNth(cron.second, 0);
    const perSecond = all(cron.second, 0) ? 'every second' : sn !== null ? `every ${sn} seconds` : `at seconds ${list(seconds, String)}`;
    if (allMinutes) return { text: `${perSecond}${during}`, fixed: false };
    return { text: `${perSecond}, ${timePhrase({ ...cron, second: cron.second.map((_, i) => i === 0) }).text}`, fixed: false };
  }
  const sec = seconds[0] === 0 ? '' : `:${two(seconds[0])}`;
  if (allMinutes) return { text: sec === '' ? `every minute${during}` : `every minute at second ${seconds[0]}${during}`, fixed: false };
  if (mn !== null && sec === '') return { text: `every ${mn} minutes${during}`, fixed: false };
  if (minutes.length === 1 && allHours) return { text: minutes[0] === 0 && sec === '' ? 'every hour' : `every hour at :${two(minutes[0])}${sec}`, fixed: false };
  if (minutes.length === 1 && hn !== null) return { text: `every ${hn} hours${minutes[0] === 0 && sec === '' ? '' : ` at :${two(minutes[0])}${sec}`}`, fixed: false };
  if (minutes.length * hours.length <= 6) {
    const times = hours.flatMap((h) => minutes.map((m) => `${two(h)}:${two(m)}${sec}`));
    return { text: `at ${joinAnd(times)}`, fixed: true };
  }
  const at = `at minute${minutes.length === 1 ? '' : 's'} ${list(minutes, String)}${sec === '' ? '' : ` (second ${seconds[0]})`}`;
  return { text: allHours ? `${at} of every hour` : `${at} past hour${hours.length === 1 ? '' : 's'} ${list(hours, String)}`, fixed: true };
}

/** "09:00 to 17:59" for a run of hours; "03:00 to 03:59 and 15:00 to 15:59" for several. */
function hourSpan(hours: readonly number[]): string {
  const spans: string[] = [];
  for (let i = 0; i < hours.length; ) {
    let j = i;
    while (j + 1 < hours.length && hours[j + 1] === hours[j] + 1) j++;
    spans.push(`${two(hours[i])}:00 to ${two(hours[j])}:59`);
    i = j + 1;
  }
  return joinAnd(spans);
}

/** The days ("every day", "weekdays", "on day 1 of the month") and months ("from June to August"). */
function dayParts(cron: CronExpression, fixed: boolean): { days: string; months: string } {
  const doms = values(cron.dayOfMonth, 1);
  const dows = values(cron.dayOfWeek, 0);
  const months = values(cron.month, 1);
  const everyDom = all(cron.dayOfMonth, 1);
  const everyDow = dows.length === 7;
  // Monday first, so Saturday and Sunday read as a run: days are numbered Monday 0 to Sunday 6 here.
  const mondayFirst = dows.map((d) => (d + 6) % 7).sort((a, b) => a - b);
  const dayNames = (joiner: string): string => list(mondayFirst, (k) => DAYS[(k + 1) % 7]).replace(/ and ([^,]*)$/, ` ${joiner} $1`);
  // "on 1 January" reads better than "on day 1 of the month, in January".
  if (!everyDom && everyDow && cron.daysMatchBoth && doms.length === 1 && months.length === 1) return { days: `on ${doms[0]} ${MONTHS[months[0]]}`, months: '' };
  const domText = `day${doms.length === 1 ? '' : 's'} ${list(doms, String)} of the month`;
  const run = mondayFirst.length >= 3 && mondayFirst[mondayFirst.length - 1] - mondayFirst[0] === mondayFirst.length - 1;
  let days: string;
  if (cron.daysMatchBoth && everyDom && everyDow) days = fixed ? 'every day' : '';
  else if (cron.daysMatchBoth && everyDom) {
    if (fixed) days = dows.join(',') === '1,2,3,4,5' ? 'weekdays' : `every ${dayNames('and')}`;
    else days = run ? dayNames('and') : `on ${dayNames('and')}`;
  } else if (cron.daysMatchBoth && everyDow) days = `on ${domText}`;
  else if (cron.daysMatchBoth) days = `on a ${dayNames('or')} that is day ${list(doms, String).replace(/ and ([^,]*)$/, ' or $1')} of the month`;
  else days = `on ${domText} or on ${dayNames('or')}`;
  if (months.length === 12) return { days, months: '' };
  const monthRun = months.length >= 3 && months[months.length - 1] - months[0] === months.length - 1;
  return { days, months: monthRun ? `from ${MONTHS[months[0]]} to ${MONTHS[months[months.length - 1]]}` : `in ${list(months, (m) => MONTHS[m])}` };
}
