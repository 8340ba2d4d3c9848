/**
 * The daemon's errors in the CLI's words (cli/errors.ts): fields become the flags or arguments
 * that set them, by `data.field`, for the job of a schedule (`job.…`) and a bulk filter
 * (`filter.…`) alike; names the user chose stay; `spool rpc` keeps the protocol's words.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cliMessage } from '../../cli/errors';
import { invalidParams, SpoolError } from '../../shared/protocol/errors';
import { ErrorCode } from '../../shared/protocol';

test('a field becomes its flag, with or without the prefix of a schedule\'s job or a bulk filter', () => {
  assert.equal(cliMessage(invalidParams('tags', 'tags[0] must be 1 to 64 characters long (got 70)'), 'enqueue'), '--tag must be 1 to 64 characters long (got 70)');
  assert.equal(cliMessage(invalidParams('job.payload.command', 'job.payload.command must be a non-empty string'), 'schedule add'), '--shell must be a non-empty string');
  assert.equal(cliMessage(invalidParams('filter.states', 'filter.states[0] must be one of queued, dead (got "x")'), 'retry'), '--state must be one of queued, dead (got "x")');
  assert.equal(cliMessage(invalidParams('defaultTimeoutMs', 'defaultTimeoutMs must be an integer from 100 to 604800000 (got 5)'), 'queue'), '--timeout must be an integer from 100 to 604800000 (got 5)');
});

test('the name of a variable or header the user chose is kept after its flag', () => {
  assert.equal(cliMessage(invalidParams('payload.env.A=B', 'payload.env has an invalid variable name "A=B"'), 'enqueue'), '--env has an invalid variable name "A=B"');
  assert.equal(cliMessage(invalidParams('payload.headers.X-Id', 'payload.headers.X-Id must not contain a line break'), 'enqueue'), '--header X-Id must not contain a line break');
});

test('a positional argument is named as such, and only the leading mention is rewritten', () => {
  const bad = invalidParams('name', 'name must be 1 to 128 characters (got "bad name")');
  assert.equal(cliMessage(bad, 'schedule add'), 'The schedule name must be 1 to 128 characters (got "bad name")');
  assert.equal(cliMessage(bad, 'queue'), 'The queue name must be 1 to 128 characters (got "bad name")');
});

test('protocol-only field names anywhere in a message are translated too', () => {
  assert.equal(cliMessage(invalidParams('runAt', 'Give either delayMs or runAt, not both'), 'enqueue'), 'Give either --delay or --at, not both');
  assert.equal(cliMessage(invalidParams('backoff.capMs', 'backoff.capMs (1000) must be at least backoff.baseMs (5000); raise the cap or lower the base'), 'enqueue'), 'The --backoff cap (1000) must be at least the --backoff base (5000); raise the cap or lower the base');
});

test('an existing schedule points to spool schedule set, not to schedules.update', () => {
  const exists = new SpoolError(ErrorCode.AlreadyExists, 'A schedule named "n" exists already. Change it with schedules.update (…).', { schedule: 'n' });
  assert.equal(cliMessage(exists, 'schedule add'), 'A schedule named "n" exists already. Change it with spool schedule set n …, or remove it first (spool schedule rm n).');
});

test('spool rpc and errors that are not the daemon\'s are left as they are', () => {
  const raw = invalidParams('tags', 'tags[0] must be 1 to 64 characters long (got 70)');
  assert.equal(cliMessage(raw, 'rpc'), 'tags[0] must be 1 to 64 characters long (got 70)');
  assert.equal(cliMessage(new Error('idempotencyKey is a word here'), 'enqueue'), 'idempotencyKey is a word here');
});
