/**
 * A template's `unique`, `debounce` and `throttle` in spool.jsonc: read into the template's
 * options (durations in milliseconds), carried into the job `spool run` and a schedule enqueue,
 * refused in the daemon's words at the field at fault, not taken by workflow steps; and the
 * language server's diagnostics and hover for them.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { jobTemplateOf, parseJobsFile, templateToJob, type Problem } from '../../shared/jobsfile';
import { declaration } from '../../shared/domain/rules/declaration';
import { jobTemplate } from '../../shared/domain/rules/schedules';
import * as service from '../../lsp/service';
import { marked } from '../helpers/cursor';

const file = (template: string, extra = ''): string => `{
  "project": "p",
  "queues": { "q": {} },
  "templates": {
    "t": { "queue": "q", "kind": "report", "payload": { "month": "{{month}}" }, "params": { "month": { "default": "11" } }${template} }
  }${extra}
}`;

function problems(text: string): Pick<Problem, 'code' | 'message' | 'path'>[] {
  return parseJobsFile(text).problems.map(({ code, message, path }) => ({ code, message, path }));
}

test('unique, debounce and throttle are read into the template, carried into its job, and accepted by the daemon\'s checks', () => {
  const parsed = parseJobsFile(file(', "unique": { "for": "10m", "by": ["kind", "payload.month"], "while": "active" }'));
  assert.deepEqual(parsed.problems, []);
  const template = parsed.declaration?.templates[0];
  assert.ok(template !== undefined);
  assert.deepEqual(template.options, { unique: { for: 600_000, by: ['kind', 'payload.month'], while: 'active' } });
  const job = templateToJob(template, { month: '12' });
  assert.ok(job.ok);
  assert.deepEqual(job.value.unique, { for: 600_000, by: ['kind', 'payload.month'], while: 'active' });
  // What apply and a schedule store: checked by the daemon's rules, unchanged.
  const applied = declaration(JSON.parse(JSON.stringify(parsed.declaration)), 'file');
  assert.deepEqual(applied.templates[0]?.options, template.options);
  assert.deepEqual(jobTemplate(jobTemplateOf(template, { month: '1' }), 'job').unique, template.options.unique);

  const debounce = parseJobsFile(file(', "debounce": "5s", "unique": { "by": ["queue", "kind", "group"] }'));
  assert.deepEqual(debounce.problems, []);
  assert.deepEqual(debounce.declaration?.templates[0]?.options, { debounce: 5000, unique: { by: ['queue', 'kind', 'group'] } });
  const throttle = parseJobsFile(file(', "throttle": "1m"'));
  assert.deepEqual(throttle.declaration?.templates[0]?.options, { throttle: 60_000 });
});

test('a bad duration, a part of "by" that is none, and two rules at once are refused at the field, in the daemon\'s words', () => {
  assert.deepEqual(problems(file(', "debounce": "5"')).map((p) => [p.code, p.path.join('.')]), [['invalid-duration', 'templates.t.debounce']]);
  assert.deepEqual(problems(file(', "unique": { "for": "soon" }')).map((p) => [p.code, p.path.join('.')]), [['invalid-duration', 'templates.t.unique.for']]);
  const by = problems(file(', "unique": { "for": "1h", "by": ["payload", "colour"] }'));
  assert.deepEqual(by.map((p) => [p.code, p.path.join('.')]), [['not-allowed', 'templates.t.unique.by.1']]);
  assert.match(by[0]?.message ?? '', /templates\.t\.unique\.by\[1\] must be one of queue, kind, payload, group, or payload\.<path>/);
  const both = problems(file(', "debounce": "1s", "throttle": "1s"'));
  assert.deepEqual(both.map((p) => [p.code, p.path.join('.')]), [['not-allowed', 'templates.t.throttle']]);
  assert.match(both[0]?.message ?? '', /Give either templates\.t\.debounce or templates\.t\.throttle, not both/);
  assert.match(problems(file(', "unique": { "by": ["kind"] }'))[0]?.message ?? '', /templates\.t\.unique\.for is required/);
  assert.deepEqual(problems(file(', "unique": { "for": "1h", "while": "later" }')).map((p) => p.code), ['not-allowed']);
  assert.deepEqual(problems(file(', "unique": { "for": "1h", "until": "x" }')).map((p) => p.code), ['unknown-field']);
});

test('a workflow step takes no unique, debounce or throttle, and one made from a template runs without them', () => {
  const steps = ', "workflows": { "w": { "steps": { "a": { "queue": "q", "kind": "k", "payload": 1, "debounce": "5s" }, "b": { "template": "t" } } } }';
  assert.deepEqual(problems(file('', steps)).map((p) => [p.code, p.path.join('.')]), [['unknown-field', 'workflows.w.steps.a.debounce']]);
  const ok = parseJobsFile(file(', "throttle": "1m"', ', "workflows": { "w": { "steps": { "b": { "template": "t" } } } }'));
  assert.deepEqual(ok.problems, []);
  assert.deepEqual(ok.workflows[0]?.steps[0]?.options, {});
});

test('the language server marks a bad debounce at its value and documents the fields on hover', () => {
  const m = marked(file(', "debounce": [["5 seconds"]]'));
  const d = service.diagnostics(service.analyze(m.text), service.NO_LIVE_DATA);
  assert.deepEqual(d.map((x) => [x.code, x.range]), [['invalid-duration', m.ranges[0]]]);
  const message = d[0]?.message;
  assert.match(typeof message === 'string' ? message : (message?.value ?? ''), /templates\.t\.debounce is not a duration/);
  const h = marked(file(', "thr|ottle": "1m"'));
  const hover = service.hover(service.analyze(h.text), h.position, service.NO_LIVE_DATA, Date.UTC(2026, 0, 1));
  assert.ok(hover !== null);
  assert.match(JSON.stringify(hover.contents), /start at least this far apart/);
});
