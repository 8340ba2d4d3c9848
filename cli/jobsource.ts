/**
 * What a job does, as `spool enqueue` and `spool schedule add` take it: `--shell <command>`,
 * `--http <url>` or `--kind <kind> --payload <json>`; plus the job options both share. The
 * options' ranges and refusals are the domain's (shared/domain/rules/options.ts), the ones the
 * daemon and the editor use, named by the option that was typed.
 */
import type { Command } from 'commander';
import { attemptsText, OPTION_RANGES, priorityText, timeoutText } from '../shared/domain/rules/options';
import type { JobOptions } from '../shared/protocol/types';
import { CliError } from './errors';
import { parseBackoff } from './parse/duration';
import { collect, orFail, parseJsonArgument } from './parse/values';

export type JobSourceOptions = {
  shell?: string;
  http?: string;
  kind?: string;
  payload?: string;
  cwd?: string;
  env?: string[];
  method?: string;
  header?: string[];
  body?: string;
};

export type JobOptionValues = {
  priority?: string;
  attempts?: string;
  backoff?: string;
  timeout?: string;
  tag?: string[];
};

export function addJobSourceOptions(cmd: Command): Command {
  return cmd
    .option('--shell <command>', 'run a shell command (kind shell; /bin/sh -c in the current folder)')
    .option('--cwd <dir>', "with --shell: the folder to run in (default: the current one; over --endpoint, the daemon's)")
    .option('--env <KEY=VALUE>', 'with --shell: an environment variable (repeatable)', collect)
    .option('--http <url>', 'call a URL (kind http; 2xx succeeds, 4xx fails for good, 5xx retries)')
    .option('--method <method>', 'with --http: the HTTP method (default GET)')
    .option('--header <name:value>', 'with --http: a request header (repeatable)', collect)
    .option('--body <text>', 'with --http: the request body')
    .option('--kind <kind>', 'a kind that your own workers claim (with --payload)')
    .option('--payload <json|@file|->', 'with --kind: the payload as JSON, @file to read a file, - for stdin');
}

export function addJobOptions(cmd: Command): Command {
  return cmd
    .option('--priority <n>', `higher runs first (${OPTION_RANGES.priority.min}..${OPTION_RANGES.priority.max}, default 0)`)
    .option('--attempts <n>', `how many attempts before the job is dead (${OPTION_RANGES.attempts.min}..${OPTION_RANGES.attempts.max}, default: the queue's)`)
    .option('--backoff <strategy:base:cap>', 'wait between attempts, e.g. exponential:1s:5m, linear:10s:2m, fixed:30s')
    .option('--timeout <duration>', 'lease: how long one attempt may run, e.g. 30s, 10m')
    .option('--tag <tag>', 'a tag to find the job by (repeatable)', collect);
}

/**
 * The job's kind and payload from the source options; exactly one source must be given. A shell
 * job runs in the current folder, unless it goes to a daemon on another machine (`remote`), where
 * that folder need not exist: there it runs in the daemon's own working folder unless --cwd
 * says otherwise, and `note` is told so.
 */
export async function resolveJobSource(o: JobSourceOptions, remote: { note(text: string): void } | null = null): Promise<{ kind: string; payload: unknown }> {
  const given = [o.shell !== undefined && '--shell', o.http !== undefined && '--http', o.kind !== undefined && '--kind'].filter((x) => x);
  if (given.length !== 1) {
    throw new CliError(
      given.length === 0
        ? 'Say what the job does: --shell "<command>", --http <url>, or --kind <kind> --payload <json>.'
        : `Use only one of ${given.join(', ')}.`,
    );
  }
  if (o.shell !== undefined) {
    const env: Record<string, string> = {};
    for (const pair of o.env ?? []) {
      const eq = pair.indexOf('=');
      if (eq <= 0) throw new CliError(`Invalid --env "${pair}": use KEY=VALUE.`);
      env[pair.slice(0, eq)] = pair.slice(eq + 1);
    }
    if (remote !== null && o.cwd === undefined) {
      remote.note("The job runs in the daemon's working folder on its machine (this folder may not exist there); give --cwd DIR to choose one.");
      return { kind: 'shell', payload: { command: o.shell, ...(o.env ? { env } : {}) } };
    }
    return { kind: 'shell', payload: { command: o.shell, cwd: o.cwd ?? process.cwd(), ...(o.env ? { env } : {}) } };
  }
  if (o.http !== undefined) {
    const headers: Record<string, string> = {};
    for (const h of o.header ?? []) {
      const colon = h.indexOf(':');
      if (colon <= 0) throw new CliError(`Invalid --header "${h}": use Name: value.`);
      headers[h.slice(0, colon).trim()] = h.slice(colon + 1).trim();
    }
    return {
      kind: 'http',
      payload: { url: o.http, ...(o.method ? { method: o.method.toUpperCase() } : {}), ...(o.header ? { headers } : {}), ...(o.body !== undefined ? { body: o.body } : {}) },
    };
  }
  const kind = o.kind ?? '';
  const payload = o.payload !== undefined ? await parseJsonArgument(o.payload, '--payload') : undefined;
  return { kind, payload };
}

export type { JobOptions };

/**
 * A job's timeout (its lease) from `--timeout`. The range is checked here so that the message
 * names the option and speaks in durations, not in the protocol's timeoutMs.
 */
export function parseTimeout(text: string): number {
  return orFail(timeoutText(text, '--timeout'));
}

export function resolveJobOptions(o: JobOptionValues): JobOptions {
  const out: JobOptions = {};
  if (o.priority !== undefined) out.priority = orFail(priorityText(o.priority, '--priority'));
  if (o.attempts !== undefined) out.maxAttempts = orFail(attemptsText(o.attempts, '--attempts'));
  if (o.backoff !== undefined) out.backoff = parseBackoff(o.backoff);
  if (o.timeout !== undefined) out.timeoutMs = parseTimeout(o.timeout);
  if (o.tag !== undefined) out.tags = o.tag;
  return out;
}
