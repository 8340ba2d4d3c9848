/**
 * parseJobsFile: the normalized declaration, and every layer of problems (JSON syntax, schema,
 * meaning) at its exact range. Each fixture marks the range it expects with ⟦…⟧; the marks are
 * taken out before parsing.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { fieldAt, formatProblem, lineColumn, parseJobsFile, type Problem, type ProblemCode } from '../../shared/jobsfile';

const EXAMPLE = path.resolve(__dirname, '..', '..', 'examples', 'spool.jsonc');

/** The fixture without its ⟦…⟧ marks, and the range they enclosed. */
function marked(fixture: string): { text: string; offset: number; length: number } {
  const open = fixture.indexOf('⟦');
  const close = fixture.indexOf('⟧');
  assert.ok(open >= 0 && close > open, 'the fixture marks a range with ⟦…⟧');
  const text = fixture.slice(0, open) + fixture.slice(open + 1, close) + fixture.slice(close + 1);
  return { text, offset: open, length: close - open - 1 };
}

/**
 * Parses `fixture` and asserts it has exactly one problem, with `code`, over the marked range;
 * returns it for further checks.
 */
function expectOne(fixture: string, code: ProblemCode): Problem {
  const { text, offset, length } = marked(fixture);
  const { problems } = parseJobsFile(text);
  assert.equal(problems.length, 1, `one problem expected, got: ${problems.map((p) => `${p.code} ${p.message}`).join(' | ')}`);
  const [problem] = problems;
  assert.ok(problem !== undefined);
  assert.equal(problem.code, code, problem.message);
  assert.deepEqual(
    { marked: text.slice(problem.range.offset, problem.range.offset + problem.range.length), offset: problem.range.offset, length: problem.range.length },
    { marked: text.slice(offset, offset + length), offset, length },
  );
  return problem;
}

/** A file around `body` (the queues, templates and schedules entries). */
const file = (body: string): string => `{\n  "project": "web",\n${body}\n}\n`;
const SHELL = '"t": { "queue": "q", "kind": "shell", "command": "echo hi" }';

test('a whole file reads into the normalized declaration a daemon needs', () => {
  const text = fs.readFileSync(EXAMPLE, 'utf8');
  const result = parseJobsFile(text);
  assert.deepEqual(result.problems, []);
  const d = result.declaration;
  assert.ok(d !== null);
  assert.equal(d.project, 'acme-web');
  assert.deepEqual(d.queues[0], {
    name: 'emails',
    settings: {
      concurrency: 4,
      rateLimit: { perSecond: 10, burst: 20 },
      maxAttempts: 5,
      backoff: { strategy: 'exponential', baseMs: 2000, capMs: 600_000 },
      timeoutMs: 30_000,
      retentionMs: 7 * 86_400_000,
    },
  });
  assert.equal(d.queues[1]?.settings.paused, false);
  assert.deepEqual(d.templates.map((t) => [t.name, t.kind, t.queue]), [
    ['db-backup', 'shell', 'maintenance'],
    ['send-digest', 'http', 'emails'],
    ['rebuild-thumbnails', 'thumbnail', 'maintenance'],
  ]);
  assert.deepEqual(d.templates[2]?.payload, { bucket: 'acme-images', sizes: [64, 256, 1024] });
  const [nightly, digest, weekly] = d.schedules;
  assert.deepEqual(nightly, {
    name: 'nightly-backup',
    cron: '0 3 * * *',
    timezone: 'Europe/Paris',
    template: 'db-backup',
    params: { target: 'production' },
    enabled: true,
    missedPolicy: 'runOnce',
    overlapPolicy: 'skip',
    queue: 'maintenance',
    job: {
      kind: 'shell',
      payload: { command: './scripts/backup.sh --target production --keep 14', cwd: '/srv/acme-web', env: { PGHOST: 'db.internal' } },
      timeoutMs: 3_600_000,
      tags: ['backup'],
    },
  });
  // A parameter inside a JSON body is substituted too; defaults fill what the schedule leaves out.
  assert.deepEqual(digest?.job.payload, { url: 'https://api.acme.test/digests/subscribers', method: 'POST', headers: { 'content-type': 'application/json' }, body: { since: '24h' } });
  // Defaults: UTC, enabled unless said, skip missed runs, allow overlap.
  assert.deepEqual([weekly?.timezone, weekly?.enabled, weekly?.missedPolicy, weekly?.overlapPolicy], ['UTC', false, 'skip', 'allow']);
  // Where each object is, and what names what, for the language server.
  assert.deepEqual(result.locations.map((l) => `${l.type}:${l.name}`).slice(0, 3), ['queue:emails', 'queue:maintenance', 'template:db-backup']);
  const ref = result.references.find((r) => r.from.name === 'nightly-backup');
  assert.ok(ref !== undefined);
  assert.deepEqual(ref.to, { type: 'template', name: 'db-backup' });
  assert.equal(text.slice(ref.range.offset, ref.range.offset + ref.range.length), '"db-backup"');
});

test('positions are 0-based in ranges and 1-based through lineColumn, with CRLF line ends', () => {
  const text = '{\r\n  "project": "web",\r\n  "queues": { "q": { "timeout": "soon" } }\r\n}';
  const [problem] = parseJobsFile(text).problems;
  assert.ok(problem !== undefined);
  assert.deepEqual(problem.range.start, { line: 2, character: 32 });
  assert.deepEqual(problem.range.end, { line: 2, character: 38 });
  assert.deepEqual(lineColumn(problem.range.start), { line: 3, column: 33 });
  assert.equal(text.slice(problem.range.offset, problem.range.offset + problem.range.length), '"soon"');
});

test('syntax: a JSON error is reported where jsonc-parser finds it, and the rest is still checked', () => {
  const { text } = marked(file('  "queues": { "q": { "concurrency": 2 ⟦"⟧timeout": "5x" } }'));
  const problems = parseJobsFile(text).problems;
  assert.deepEqual(problems.map((p) => [p.layer, p.code]), [['syntax', 'syntax'], ['meaning', 'invalid-duration']]);
  assert.match(problems[0]?.message ?? '', /Expected a comma/);
  // A file cut short: the missing brace is expected at the very end.
  const cut = expectOne('{ "project": "web", "queues": {}⟦⟧', 'syntax');
  assert.match(cut.message, /closing brace/);
});

test('syntax: a file cut short inside nested objects and arrays is one problem naming the closers to add, in order', () => {
  const text = '{\n  "project": "web",\n  "queues": { "q": {} },\n  "templates": {\n    "t": { "queue": "q", "kind": "shell", "payload": { "command": "echo", "tags": ["a", { "x": 1 ';
  const problems = parseJobsFile(text).problems.filter((p) => p.layer === 'syntax');
  assert.equal(problems.length, 1, problems.map((p) => p.message).join('\n'));
  assert.equal(problems[0]?.layer, 'syntax');
  assert.equal(problems[0]?.message, 'Expected }]}}}} here: 6 objects or arrays are still open.');
  assert.equal(problems[0]?.range.offset, text.length);
});

test('syntax: comments and trailing commas are allowed; an empty file needs a project', () => {
  assert.deepEqual(parseJobsFile('// team jobs\n{ "project": "web", /* none yet */ "queues": {}, }').problems, []);
  // A byte-order mark, as some Windows editors write, is no error.
  assert.deepEqual(parseJobsFile('\uFEFF{ "project": "web" }').problems, []);
  const [empty] = parseJobsFile('').problems;
  assert.equal(empty?.code, 'missing-required');
});

test('schema: an unknown field is marked at its key, with the closest known name', () => {
  const problem = expectOne(file('  "queues": { "q": { ⟦"concurency"⟧: 2 } }'), 'unknown-field');
  assert.equal(problem.suggestion, 'concurrency');
  assert.equal(problem.layer, 'schema');
  assert.match(problem.message, /Unknown field "concurency" in queues\.q\. Did you mean "concurrency"\? Allowed: concurrency, rateLimit/);
  assert.equal(expectOne(file('  ⟦"scedules"⟧: {}'), 'unknown-field').suggestion, 'schedules');
});

test('schema: a value of the wrong type is marked whole, and the message says what is allowed', () => {
  const p = expectOne(file('  "queues": { "q": { "concurrency": ⟦"four"⟧ } }'), 'wrong-type');
  assert.equal(p.message, 'queues.q.concurrency must be an integer from 1 to 100000, or null (got the string "four")');
  expectOne(file('  "queues": { "q": { "paused": ⟦"yes"⟧ } }'), 'wrong-type');
  expectOne(file('  "schedules": ⟦[]⟧'), 'wrong-type');
  expectOne(file(`  "queues": { "q": {} }, "templates": { ${SHELL.replace('"echo hi" }', '"echo hi", "tags": [⟦3⟧] }')} }`), 'wrong-type');
});

test('schema: a missing required field is marked at the name of the object that lacks it', () => {
  const p = expectOne(file(`  "queues": { "q": {} }, "templates": { ${SHELL} }, "schedules": { ⟦"nightly"⟧: { "template": "t" } }`), 'missing-required');
  assert.match(p.message, /^schedules\.nightly needs "cron"/);
  expectOne('⟦{⟧ "queues": {} }', 'missing-required');
  // Each kind needs its own field: a shell template its command.
  expectOne(file('  "queues": { "q": {} }, "templates": { ⟦"t"⟧: { "queue": "q", "kind": "shell" } }'), 'missing-required');
});

test('schema: limits, choices, names and the fields of another kind', () => {
  expectOne(file('  "queues": { "q": { "attempts": ⟦0⟧ } }'), 'out-of-range');
  expectOne(file('  "queues": { "q": { "timeout": ⟦"10ms"⟧ } }'), 'out-of-range');
  const choice = expectOne(file(`  "queues": { "q": {} }, "templates": { ${SHELL} }, "schedules": { "s": { "cron": "@daily", "template": "t", "overlapPolicy": ⟦"skipp"⟧ } }`), 'not-allowed');
  assert.equal(choice.suggestion, 'skip');
  expectOne(file('  "queues": { ⟦"-bad name"⟧: {} }'), 'invalid-name');
  const other = expectOne(file('  "queues": { "q": {} }, "templates": { "t": { "queue": "q", "kind": "shell", "command": "x", ⟦"url"⟧: "https://a" } }'), 'field-not-for-kind');
  assert.match(other.message, /"url" is a field of http templates; templates\.t is a shell template/);
});

test('meaning: durations, rates and backoffs are read by the domain parsers, and their refusals shown', () => {
  const d = expectOne(file('  "queues": { "q": { "timeout": ⟦"30"⟧ } }'), 'invalid-duration');
  assert.match(d.message, /a number needs a unit/);
  assert.equal(d.layer, 'meaning');
  assert.match(expectOne(file('  "queues": { "q": { "rateLimit": ⟦"10"⟧ } }'), 'invalid-rate').message, /needs a unit of time/);
  assert.match(expectOne(file('  "queues": { "q": { "backoff": ⟦"exponential:1x"⟧ } }'), 'invalid-backoff').message, /base "1x"/);
});

test('meaning: a queue\'s ageing is read by the domain parser, kept in its exact form, and refused with the accepted form', () => {
  const ok = parseJobsFile(file('  "queues": { "q": { "ageing": "2 per 90s" }, "r": { "ageing": "off" }, "s": { "ageing": null } }'));
  assert.deepEqual(ok.problems, []);
  assert.deepEqual(ok.declaration?.queues.map((q) => q.settings.ageing), ['2 per 90s', null, null]);
  const bad = expectOne(file('  "queues": { "q": { "ageing": ⟦"1/10m"⟧ } }'), 'invalid-ageing');
  assert.match(bad.message, /^queues\.q\.ageing is not a priority ageing: use N per DURATION, like 1 per 10m/);
  assert.equal(bad.layer, 'meaning');
  assert.match(expectOne(file('  "queues": { "q": { "ageing": ⟦"1 per 100ms"⟧ } }'), 'invalid-ageing').message, /the interval must be from 1s to 30d/);
  expectOne(file('  "queues": { "q": { "ageing": ⟦5⟧ } }'), 'wrong-type');
});

test('meaning: a cron is marked at the field at fault, inside the string', () => {
  const p = expectOne(file(`  "queues": { "q": {} }, "templates": { ${SHELL} }, "schedules": { "s": { "cron": "0 ⟦25⟧ * * *", "template": "t" } }`), 'invalid-cron');
  assert.match(p.message, /hour/);
  // An escape before the fault moves it in the text, not in the value.
  expectOne(file(`  "queues": { "q": {} }, "templates": { ${SHELL} }, "schedules": { "s": { "cron": "\\u0030 ⟦99⟧ * * *", "template": "t" } }`), 'invalid-cron');
  expectOne(file(`  "queues": { "q": {} }, "templates": { ${SHELL} }, "schedules": { "s": { "cron": "⟦0 0 30 2 *⟧", "template": "t" } }`), 'cron-never-fires');
});

test('meaning: an unknown time zone is marked with the closest known one', () => {
  const p = expectOne(file(`  "queues": { "q": {} }, "templates": { ${SHELL} }, "schedules": { "s": { "cron": "@daily", "timezone": ⟦"Europe/Pari"⟧, "template": "t" } }`), 'unknown-timezone');
  assert.equal(p.suggestion, 'Europe/Paris');
});

test('meaning: references to templates and queues the file does not declare', () => {
  const t = expectOne(file(`  "queues": { "q": {} }, "templates": { ${SHELL} }, "schedules": { "s": { "cron": "@daily", "template": ⟦"tt"⟧ } }`), 'unknown-template');
  // Two letters are one edit from too many names to be taken for a typo (the rule the CLI's
  // hints use too); the message lists the templates there are.
  assert.equal(t.suggestion, undefined);
  assert.match(t.allowed ?? '', /\bt\b/);
  assert.equal(t.severity, 'error');
  // A queue is made on first use, so an undeclared one is a warning and the file still applies.
  const text = file('  "queues": { "emails": {} }, "templates": { "t": { "queue": "emials", "kind": "shell", "command": "x" } }');
  const result = parseJobsFile(text);
  assert.deepEqual(result.problems.map((p) => [p.code, p.severity, p.suggestion]), [['unknown-queue', 'warning', 'emails']]);
  assert.ok(result.declaration !== null);
  expectOne(file('  "templates": { "t": { "queue": ⟦"nowhere"⟧, "kind": "shell", "command": "x" } }'), 'unknown-queue');
});

test('meaning: a duplicate key is marked at its second appearance', () => {
  const p = expectOne(file('  "queues": { "q": { "paused": true, ⟦"paused"⟧: false } }'), 'duplicate-key');
  assert.match(p.message, /"paused" appears twice in queues\.q \(first on line 3\)/);
  expectOne(file('  "queues": { "q": {}, ⟦"q"⟧: {} }'), 'duplicate-key');
});

test('meaning: parameters — undeclared placeholders, values without a default, unknown names', () => {
  const undeclared = expectOne(file('  "queues": { "q": {} }, "templates": { "t": { "queue": "q", "kind": "shell", "command": "deploy ⟦{{ target }}⟧", "params": { "targets": {} } } }'), 'undeclared-param');
  assert.equal(undeclared.suggestion, 'targets');
  // Double braces that are not a parameter name (a docker format) are left alone.
  assert.deepEqual(parseJobsFile(file('  "queues": { "q": {} }, "templates": { "t": { "queue": "q", "kind": "shell", "command": "docker ps --format {{.Names}}" } }')).problems, []);
  const template = '"t": { "queue": "q", "kind": "shell", "command": "deploy {{target}}", "params": { "target": {} } }';
  expectOne(file(`  "queues": { "q": {} }, "templates": { ${template} }, "schedules": { "s": { "cron": "@daily", "template": ⟦"t"⟧ } }`), 'missing-param');
  expectOne(file(`  "queues": { "q": {} }, "templates": { ${template} }, "schedules": { "s": { "cron": "@daily", "template": "t", ⟦"params"⟧: {} } }`), 'missing-param');
  const unknown = expectOne(file(`  "queues": { "q": {} }, "templates": { ${template} }, "schedules": { "s": { "cron": "@daily", "template": "t", "params": { "target": "x", ⟦"targte"⟧: "y" } } }`), 'unknown-param');
  assert.equal(unknown.suggestion, 'target');
});

test('an invalid file has no declaration, but a partial one for editors', () => {
  const result = parseJobsFile(file('  "queues": { "good": { "concurrency": 2 }, "bad": { "timeout": "soon" } }'));
  assert.equal(result.declaration, null);
  assert.deepEqual(result.partial.queues, [{ name: 'good', settings: { concurrency: 2 } }, { name: 'bad', settings: {} }]);
});

test('meaning: what the daemon would refuse to run is said now — a relative folder, a URL that is not http', () => {
  const q = '"queues": { "q": {} }, ';
  expectOne(file(`  ${q}"templates": { "t": { "queue": "q", "kind": "shell", "command": "ls", "cwd": ⟦"srv/app"⟧ } }`), 'invalid-path');
  expectOne(file(`  ${q}"templates": { "t": { "queue": "q", "kind": "http", "url": ⟦"ftp://files.test/x"⟧ } }`), 'invalid-url');
  expectOne(file(`  ${q}"templates": { "t": { "queue": "q", "kind": "http", "url": ⟦"/relative"⟧ } }`), 'invalid-url');
  // Placeholders stand for text; one at the start is left to the daemon, once substituted.
  const fine = `  ${q}"templates": { "a": { "queue": "q", "kind": "http", "url": "https://{{host}}/x", "params": { "host": {} } }, "b": { "queue": "q", "kind": "http", "url": "{{base}}/x", "params": { "base": {} } }, "c": { "queue": "q", "kind": "shell", "command": "ls", "cwd": "{{dir}}", "params": { "dir": {} } } }`;
  assert.deepEqual(parseJobsFile(file(fine)).problems, []);
});

test('a problem prints as file:line:column, and a path leads to its field\'s documentation', () => {
  const [problem] = parseJobsFile('{\n  "project": "web",\n  "queues": { "q": { "rateLimit": "fast" } }\n}').problems;
  assert.ok(problem !== undefined);
  assert.match(formatProblem(problem, 'spool.jsonc'), /^spool\.jsonc:3:35: error: queues\.q\.rateLimit is not a rate: .* \[invalid-rate\]$/);
  assert.equal(fieldAt(['schedules', 'any-name', 'cron'])?.kind, 'cron');
  assert.equal(fieldAt(['templates', 't', 'params', 'p', 'default'])?.kind, 'string');
  assert.equal(fieldAt(['queues', 'q', 'colour']), undefined);
  assert.equal(fieldAt(['project', 'x']), undefined);
});

test("a queue's retry rule and expireAfter read into its settings; a malformed rule is reported at its value, naming the field", () => {
  const ok = parseJobsFile(file('  "queues": { "q": { "retry": { "on": { "exitCodes": [75] }, "never": { "httpStatus": [400] } }, "expireAfter": "1h" } }'));
  assert.deepEqual(ok.problems, []);
  assert.deepEqual(ok.declaration?.queues[0]?.settings, { retry: { on: { exitCodes: [75] }, never: { httpStatus: [400] } }, expireAfterMs: 3_600_000 });
  const cleared = parseJobsFile(file('  "queues": { "q": { "retry": null, "expireAfter": null } }'));
  assert.deepEqual(cleared.declaration?.queues[0]?.settings, { retry: null, expireAfterMs: null });
  const bad = expectOne(file('  "queues": { "q": { "retry": ⟦{ "on": { "exitCodes": ["75"] } }⟧ } }'), 'not-allowed');
  assert.match(bad.message, /queues\.q\.retry\.on\.exitCodes\[0\]/);
  expectOne(file('  "queues": { "q": { "expireAfter": ⟦"soon"⟧ } }'), 'invalid-duration');
});
