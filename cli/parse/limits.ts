/**
 * Resource limits from the command line, for `spool enqueue --shell` (the job's own) and
 * `spool queue <name> set` (the queue's): `--memory 512MiB --cpu 30s --open-files 256
 * --processes 64`. Sizes and durations are shared/domain's syntax; this file only names the
 * option at fault. For a queue, `none` removes a limit.
 */
import type { Command } from 'commander';
import * as sizes from '../../shared/domain/sizes';
import { RESOURCE_LIMIT_RANGES } from '../../shared/protocol';
import type { ResourceLimits } from '../../shared/protocol/types';
import { CliError } from '../errors';
import { parseDuration } from './duration';
import { parseInteger } from './values';

/** The options as commander gives them. */
export interface LimitOptionValues {
  memory?: string;
  cpu?: string;
  openFiles?: string;
  processes?: string;
}

/** Adds the four options; `prefix` starts each description (e.g. "set: "). */
export function addLimitOptions(cmd: Command, prefix: string, removable: boolean): void {
  const none = removable ? ' or none' : '';
  cmd
    .option(`--memory <size${none ? '|none' : ''}>`, `${prefix}memory per process (address space), e.g. 512MiB or 2G${none}`)
    .option(`--cpu <duration${none ? '|none' : ''}>`, `${prefix}CPU time per process, whole seconds, e.g. 30s or 5m${none}`)
    .option(`--open-files <n${none ? '|none' : ''}>`, `${prefix}open files per process${none}`)
    .option(`--processes <n${none ? '|none' : ''}>`, `${prefix}processes, counted for the whole user the daemon runs as${none}`);
}

const RANGES = RESOURCE_LIMIT_RANGES;

/** `--memory`: bytes. */
export function parseMemory(text: string): number {
  const size = sizes.parseSize(text);
  if (!size.ok) throw new CliError(`Invalid size "${text}" for --memory: ${size.message}.`);
  const { min, max } = RANGES.memoryBytes;
  if (size.value < min || size.value > max) throw new CliError(`Invalid --memory "${text}": from ${sizes.formatSize(min)} to ${sizes.formatSize(max)}.`);
  return size.value;
}

/** `--cpu`: whole seconds. */
export function parseCpu(text: string): number {
  const ms = parseDuration(text, '--cpu');
  if (ms < 1000 || ms % 1000 !== 0) throw new CliError(`Invalid --cpu "${text}": CPU time is counted in whole seconds, at least 1s (e.g. 30s or 5m).`);
  if (ms / 1000 > RANGES.cpuSeconds.max) throw new CliError(`Invalid --cpu "${text}": at most a year.`);
  return ms / 1000;
}

type LimitKey = keyof ResourceLimits;
const PARSERS: [keyof LimitOptionValues, LimitKey, (text: string) => number][] = [
  ['memory', 'memoryBytes', parseMemory],
  ['cpu', 'cpuSeconds', parseCpu],
  ['openFiles', 'openFiles', (text) => parseInteger(text, '--open-files', RANGES.openFiles.min, RANGES.openFiles.max)],
  ['processes', 'processes', (text) => parseInteger(text, '--processes', RANGES.processes.min, RANGES.processes.max)],
];

/** The limits the options give; undefined when none is given. */
export function resolveLimits(o: LimitOptionValues): ResourceLimits | undefined {
  const limits: ResourceLimits = {};
  for (const [option, key, parse] of PARSERS) {
    const text = o[option];
    if (text !== undefined) limits[key] = parse(text);
  }
  return Object.keys(limits).length > 0 ? limits : undefined;
}

/**
 * For a queue: each given option's new value, or null where it says `none` (the limit is
 * removed); undefined when no option is given.
 */
export function resolveLimitChanges(o: LimitOptionValues): Partial<Record<LimitKey, number | null>> | undefined {
  const changes: Partial<Record<LimitKey, number | null>> = {};
  for (const [option, key, parse] of PARSERS) {
    const text = o[option];
    if (text !== undefined) changes[key] = text.trim() === 'none' ? null : parse(text);
  }
  return Object.keys(changes).length > 0 ? changes : undefined;
}
