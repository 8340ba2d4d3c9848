/**
 * The limits and defaults of jobs, queues, templates and schedules that the protocol's LIMITS
 * does not carry, each declared once: the daemon enforces them through the rules beside this
 * file, and the jobs file's field table, the CLI and the editor read them from here, so that a
 * value one of them takes is one the daemon takes.
 */
import { LIMITS } from '../../protocol';
import { DEFAULT_TIMEZONE } from '../cron/zone';

/** The most jobs a queue may run at once. */
export const MAX_CONCURRENCY = 100_000;

/** The highest rate limit (jobs started per second) and burst a queue may have. */
export const MAX_RATE = 1_000_000;

/** A template's description and a template parameter's description, in characters. */
export const MAX_DESCRIPTION_LENGTH = 4096;

/** A cron expression, in characters. */
export const MAX_CRON_LENGTH = 256;

/** An IANA time zone name, in characters. */
export const MAX_TIMEZONE_LENGTH = 64;

/** The zone a schedule's cron is read in when it names none (the cron module's, which reads it too). */
export { DEFAULT_TIMEZONE };

/** Each field of a job's context (workspace, branch, commit, origin), in characters. */
export const MAX_CONTEXT_FIELD = 1024;

/**
 * A string inside a payload (a command, an environment value, a URL, a header) or a template
 * parameter's value: the daemon bounds it by the payload's own size limit and no other, so a
 * checker that runs before the daemon holds it to the same bound.
 */
export const MAX_PAYLOAD_TEXT = LIMITS.maxPayloadBytes;

/** What a shell job's cwd must be, in words. */
export const CWD_RULE = 'an absolute path';

/** What an http job's URL must be, in words. */
export const HTTP_URL_RULE = 'an absolute http:// or https:// URL';

/** The methods an http job may use. */
export const HTTP_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/** An HTTP header name: one or more token characters (RFC 9110). */
export const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** HEADER_NAME in words, for messages. */
export const HEADER_NAME_RULE = "letters, digits and !#$%&'*+-.^_`|~ only";
