/**
 * The rules of a valid job, queue, template and schedule are declared once, in
 * shared/domain/rules/, and every program reads them from there: the jobs file (spec and check)
 * refuses what the daemon's apply refuses, the CLI and the editor refuse an out-of-range option
 * with the daemon's sentence, and the schedule handlers' default zone is the domain's.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { resolveJobOptions } from '../../cli/jobsource';
import { createdSpec } from '../../daemon/rpc/handlers/schedules';
import * as daemonDeclaration from '../../daemon/engine/validate/declaration';
import * as daemonJobs from '../../daemon/engine/validate/jobs';
import { parseOptions } from '../../extension/commands/steps/rules';
import { DEFAULT_TIMEZONE } from '../../shared/domain/cron';
import { declaredScheduleOf, templateStateOf } from '../../shared/domain/rules/declaration';
import { enqueueParams } from '../../shared/domain/rules/jobs';
import { MAX_CONCURRENCY, MAX_DESCRIPTION_LENGTH } from '../../shared/domain/rules/limits';
import { concurrencyText } from '../../shared/domain/rules/options';
import { configureParams } from '../../shared/domain/rules/queues';
import { createScheduleParams, timezone } from '../../shared/domain/rules/schedules';
import { parseJobsFile, QUEUE_SPEC, TEMPLATE_SPEC } from '../../shared/jobsfile';
import { SpoolError } from '../../shared/protocol/errors';
import { ErrorCode } from '../../shared/protocol';

function refusal(fn: () => unknown): SpoolError {
  try {
    fn();
  } catch (error) {
    if (error instanceof SpoolError) return error;
    throw error;
  }
  assert.fail('expected a refusal');
}

/** The message an Error-throwing call ends with (the CLI throws CliError, not SpoolError). */
function thrownMessage(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    if (error instanceof Error) return error.message;
    throw error;
  }
  assert.fail('expected an error');
}

/** The editor's message for `text` in its options step. */
function editorMessage(text: string): string {
  const parsed = parseOptions(text);
  assert.equal(parsed.ok, false, `${text} should be refused`);
  return parsed.ok ? '' : parsed.message;
}

/** A jobs file with one template whose description is `description`. */
function fileWithDescription(description: string): string {
  return JSON.stringify({ project: 'p', queues: { q: {} }, templates: { t: { queue: 'q', kind: 'work', payload: null, description } } });
}

describe("a template's description", () => {
  test('the jobs file and the daemon take the same longest description, and refuse one character more', () => {
    assert.equal(MAX_DESCRIPTION_LENGTH, 4096);
    const spec = TEMPLATE_SPEC.fields['description'];
    assert.ok(spec !== undefined && spec.kind === 'string');
    assert.equal(spec.maxLength, MAX_DESCRIPTION_LENGTH);

    const longest = 'd'.repeat(MAX_DESCRIPTION_LENGTH);
    const tooLong = `${longest}d`;

    // The jobs file: the longest is read into the declaration, one more is a problem at its path.
    const ok = parseJobsFile(fileWithDescription(longest));
    assert.deepEqual(ok.problems, []);
    assert.equal(ok.declaration?.templates[0]?.description, longest);
    const refused = parseJobsFile(fileWithDescription(tooLong));
    assert.equal(refused.declaration, null);
    assert.deepEqual(
      refused.problems.map((p) => [p.code, p.path.join('.'), p.message]),
      [['out-of-range', 'templates.t.description', `templates.t.description must be 0 to ${MAX_DESCRIPTION_LENGTH} characters long (got ${MAX_DESCRIPTION_LENGTH + 1})`]],
    );

    // The daemon, through the path its engine imports: the same bound, the same sentence.
    const state = { queue: 'q', kind: 'work', payload: null };
    assert.equal(daemonDeclaration.templateStateOf({ ...state, description: longest }, 'file.templates[0]').description, longest);
    const error = refusal(() => daemonDeclaration.templateStateOf({ ...state, description: tooLong }, 'file.templates[0]'));
    assert.equal(error.code, ErrorCode.InvalidParams);
    assert.equal(error.data.field, 'file.templates[0].description');
    assert.equal(error.message, `file.templates[0].description must be 0 to ${MAX_DESCRIPTION_LENGTH} characters long (got ${MAX_DESCRIPTION_LENGTH + 1})`);
  });

  test("what the jobs file accepts, the daemon's apply accepts: the file's declaration passes the daemon's check", () => {
    const parsed = parseJobsFile(fileWithDescription('d'.repeat(MAX_DESCRIPTION_LENGTH)));
    const template = parsed.declaration?.templates[0];
    assert.ok(template !== undefined);
    const { name: _name, ...rest } = template;
    assert.deepEqual(templateStateOf(rest, 'file.templates[0]'), rest);
  });
});

describe('job options typed in the CLI and the editor', () => {
  const cases: [option: string, cli: Parameters<typeof resolveJobOptions>[0], editor: string, daemonField: string, daemonValue: Record<string, unknown>][] = [
    ['priority', { priority: '5000' }, 'priority=5000', 'priority', { priority: 5000 }],
    ['priority', { priority: '-1001' }, 'priority=-1001', 'priority', { priority: -1001 }],
    ['attempts', { attempts: '0' }, 'attempts=0', 'maxAttempts', { maxAttempts: 0 }],
    ['attempts', { attempts: '1001' }, 'attempts=1001', 'maxAttempts', { maxAttempts: 1001 }],
  ];

  for (const [option, cli, editor, daemonField, daemonValue] of cases) {
    test(`${editor}: the CLI and the editor give the daemon's sentence, each naming its own option`, () => {
      const fromCli = thrownMessage(() => resolveJobOptions(cli));
      const fromEditor = editorMessage(editor);
      assert.equal(fromCli, `--${fromEditor}`);
      assert.match(fromEditor, new RegExp(`^${option} must be an integer from -?\\d+ to \\d+ \\(got -?\\d+\\)$`));
      const fromDaemon = refusal(() => enqueueParams({ queue: 'q', kind: 'work', ...daemonValue }, 0));
      assert.equal(fromDaemon.data.field, daemonField);
      assert.equal(fromDaemon.message.replace(daemonField, option), fromEditor);
    });
  }

  test('a value that is not a number is shown as typed, in the same words', () => {
    assert.equal(thrownMessage(() => resolveJobOptions({ priority: 'high' })), `--${editorMessage('priority=high')}`);
    assert.equal(editorMessage('priority=high'), 'priority must be an integer from -1000 to 1000 (got "high")');
  });

  test('a timeout out of range is refused in durations, the same in both', () => {
    assert.equal(thrownMessage(() => resolveJobOptions({ timeout: '50ms' })), `--${editorMessage('timeout=50ms')}`);
    assert.equal(editorMessage('timeout=50ms'), 'timeout must be a duration from 100ms to 7d (got "50ms")');
    assert.equal(thrownMessage(() => resolveJobOptions({ timeout: '30' })), `--${editorMessage('timeout=30')}`);
  });

  test('a value in range is taken by both', () => {
    assert.deepEqual(resolveJobOptions({ priority: '-1000', attempts: '1000', timeout: '7d' }), { priority: -1000, maxAttempts: 1000, timeoutMs: 604_800_000 });
    assert.deepEqual(parseOptions('priority=-1000 attempts=1000 timeout=7d'), { ok: true, value: { priority: -1000, maxAttempts: 1000, timeoutMs: 604_800_000 } });
  });
});

test("a queue's concurrency: the jobs file, the daemon and the typed option share one bound and one sentence", () => {
  const spec = QUEUE_SPEC.fields['concurrency'];
  assert.ok(spec !== undefined && spec.kind === 'integer');
  assert.equal(spec.max, MAX_CONCURRENCY);
  const daemon = refusal(() => configureParams({ name: 'q', concurrency: MAX_CONCURRENCY + 1 }));
  const typed = concurrencyText(String(MAX_CONCURRENCY + 1));
  assert.deepEqual(typed, { ok: false, message: daemon.message });
  assert.deepEqual(concurrencyText(String(MAX_CONCURRENCY)), { ok: true, value: MAX_CONCURRENCY });
  const file = parseJobsFile(JSON.stringify({ project: 'p', queues: { q: { concurrency: MAX_CONCURRENCY + 1 } } }));
  assert.equal(file.problems[0]?.message, `queues.q.${daemon.message}`.replace(' (got', ', or null (got'));
});

describe("a schedule's zone", () => {
  const params = { name: 's', cron: '0 3 * * *', queue: 'q', job: { kind: 'work' } };

  test("the schedule handler's default zone is the domain's, the one the engine stores", () => {
    assert.equal(createdSpec(params).timezone, DEFAULT_TIMEZONE);
    assert.equal(createScheduleParams(params).timezone, DEFAULT_TIMEZONE);
    assert.equal(declaredScheduleOf({ ...params, template: 't' }, 'file.schedules[0]').timezone, DEFAULT_TIMEZONE);
    const file = parseJobsFile(JSON.stringify({ project: 'p', queues: { q: {} }, templates: { t: { queue: 'q', kind: 'work', payload: null } }, schedules: { s: { cron: '0 3 * * *', template: 't' } } }));
    assert.equal(file.declaration?.schedules[0]?.timezone, DEFAULT_TIMEZONE);
  });

  test('a zone given is kept, and a zone that is not a string is refused in the domain rule\'s words', () => {
    assert.equal(createdSpec({ ...params, timezone: 'Europe/Paris' }).timezone, 'Europe/Paris');
    const handler = refusal(() => createdSpec({ ...params, timezone: 5 }));
    const rule = refusal(() => timezone(5));
    assert.equal(handler.data.field, 'timezone');
    assert.equal(handler.message, rule.message);
  });
});

test('the daemon imports the rules through daemon/engine/validate, which are the domain rules themselves', () => {
  assert.equal(daemonJobs.enqueueParams, enqueueParams);
  assert.equal(daemonDeclaration.templateStateOf, templateStateOf);
});
