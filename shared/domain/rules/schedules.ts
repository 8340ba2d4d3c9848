/**
 * Validation of schedule params and job templates. The cron expression and time zone are only
 * checked for shape here; the daemon's scheduler parses them (shared/domain/cron) and computes fire times.
 */
import { retryOptions } from './declaredFields';
import { invalidParams, errorMessage } from '../../protocol/errors';
import type { JobTemplate, Schedule } from '../../protocol/types';
import { MISSED_POLICIES } from './declared';
import { maxAttempts, partialBackoff, priority, tags, timeoutMs, weight, groupKey } from './jobs';
import { DEFAULT_TIMEZONE, MAX_CRON_LENGTH, MAX_TIMEZONE_LENGTH } from './limits';
import { builtinPayload } from './payloads';
import { uniqueOptions } from './unique';
import { boolean, join, jsonText, name, object, oneOf, requiredObject, string } from '../validate';

const TEMPLATE_FIELDS = ['kind', 'payload', 'priority', 'weight', 'maxAttempts', 'backoff', 'timeoutMs', 'tags', 'unique', 'debounce', 'throttle', 'group', 'retry', 'expireAfterMs', 'deadlineMs'] as const;

export function jobTemplate(value: unknown, field: string): JobTemplate {
  const o = requiredObject(value, field, TEMPLATE_FIELDS);
  const template: JobTemplate = { kind: name(o['kind'], join(field, 'kind')), ...uniqueOptions(o, field), ...retryOptions(o, field) };
  if (o['payload'] !== undefined) {
    jsonText(o['payload'], join(field, 'payload'));
    template.payload = o['payload'];
  }
  // Each tick enqueues this payload (null when absent); a shell or http one that cannot run
  // would make a dead job every tick, so it is refused now.
  builtinPayload(template.kind, o['payload'] === undefined ? null : o['payload'], join(field, 'payload'));
  if (o['priority'] !== undefined) template.priority = priority(o['priority'], join(field, 'priority'));
  if (o['weight'] !== undefined) template.weight = weight(o['weight'], join(field, 'weight'));
  if (o['maxAttempts'] !== undefined) template.maxAttempts = maxAttempts(o['maxAttempts'], join(field, 'maxAttempts'));
  if (o['backoff'] !== undefined) template.backoff = partialBackoff(o['backoff'], join(field, 'backoff'));
  if (o['timeoutMs'] !== undefined) template.timeoutMs = timeoutMs(o['timeoutMs'], join(field, 'timeoutMs'));
  if (o['tags'] !== undefined) template.tags = tags(o['tags'], join(field, 'tags'));
  if (o['group'] !== undefined) template.group = groupKey(o['group'], join(field, 'group'));
  return template;
}

export function cron(value: unknown, field = 'cron'): string {
  const text = string(value, field, MAX_CRON_LENGTH, 1).trim();
  const fields = text.split(/\s+/).length;
  if (!text.startsWith('@') && (fields < 5 || fields > 6)) {
    throw invalidParams(field, `${field} must have 5 fields (minute hour day month weekday) or 6 (seconds first), or be a macro like @hourly (got "${text}")`, '5 or 6 cron fields');
  }
  return text;
}

export function timezone(value: unknown, field = 'timezone'): string {
  const zone = string(value, field, MAX_TIMEZONE_LENGTH, 1);
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
  } catch (error) {
    throw invalidParams(field, `${field} must be an IANA time zone such as "UTC" or "Europe/Paris" (got "${zone}": ${errorMessage(error)})`, 'IANA time zone');
  }
  return zone;
}

/** A schedule's own fields, validated (the rest of Schedule is the daemon's bookkeeping). */
export type ScheduleInput = Pick<Schedule, 'name' | 'cron' | 'timezone' | 'queue' | 'job' | 'enabled' | 'missedPolicy'>;

export function createScheduleParams(value: unknown): ScheduleInput {
  const o = object(value, 'params', ['name', 'cron', 'timezone', 'queue', 'job', 'enabled', 'missedPolicy']);
  return {
    name: name(o['name'], 'name'),
    cron: cron(o['cron']),
    timezone: o['timezone'] === undefined ? DEFAULT_TIMEZONE : timezone(o['timezone']),
    queue: name(o['queue'], 'queue'),
    job: jobTemplate(o['job'], 'job'),
    enabled: o['enabled'] === undefined ? true : boolean(o['enabled'], 'enabled'),
    missedPolicy: o['missedPolicy'] === undefined ? 'skip' : oneOf(o['missedPolicy'], 'missedPolicy', MISSED_POLICIES),
  };
}

export type ScheduleChanges = { name: string } & Partial<Omit<ScheduleInput, 'name'>>;

export function updateScheduleParams(value: unknown): ScheduleChanges {
  const o = object(value, 'params', ['name', 'cron', 'timezone', 'queue', 'job', 'enabled', 'missedPolicy']);
  const changes: ScheduleChanges = { name: name(o['name'], 'name') };
  if (o['cron'] !== undefined) changes.cron = cron(o['cron']);
  if (o['timezone'] !== undefined) changes.timezone = timezone(o['timezone']);
  if (o['queue'] !== undefined) changes.queue = name(o['queue'], 'queue');
  if (o['job'] !== undefined) changes.job = jobTemplate(o['job'], 'job');
  if (o['enabled'] !== undefined) changes.enabled = boolean(o['enabled'], 'enabled');
  if (o['missedPolicy'] !== undefined) changes.missedPolicy = oneOf(o['missedPolicy'], 'missedPolicy', MISSED_POLICIES);
  return changes;
}
