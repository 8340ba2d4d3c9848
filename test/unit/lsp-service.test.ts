/**
 * The language service, pure: cursor-marked fixtures (`|` the cursor, `[[…]]` a range a result
 * must have) in, LSP results out. Live data is a plain snapshot, as the server hands it in; the
 * clock is a fixed instant, so fire times do not depend on when the test runs.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CompletionItem, Diagnostic, Hover, TextEdit } from 'vscode-languageserver-types';
import type { LiveObject, QueueState } from '../../shared/jobsfile';
import type { JobCounts } from '../../shared/protocol/types';
import * as service from '../../lsp/service';
import { marked } from '../helpers/cursor';

const URI = 'file:///w/spool.jsonc';
/** Saturday 28 March 2026, noon UTC: the night after, Europe/Paris goes to summer time at 02:00. */
const NOW = Date.UTC(2026, 2, 28, 12, 0, 0);

const counts = (over: Partial<JobCounts> = {}): JobCounts => ({ blocked: 0, queued: 0, running: 0, retrying: 0, held: 0, completed: 0, dead: 0, cancelled: 0, ...over });

function text(h: Hover | null): string {
  assert.ok(h !== null, 'a hover');
  const c = h.contents;
  return typeof c === 'object' && 'value' in c ? c.value : JSON.stringify(c);
}

function base(schedules: string, extra = ''): string {
  return `{
  "project": "p",
  "queues": { "emails": { "concurrency": 2 } },
  "templates": {
    "digest": { "queue": "emails", "kind": "shell", "command": "echo {{who}}", "params": { "who": { "default": "all" } } }${extra}
  },
  "schedules": {
${schedules}
  }
}`;
}

test('diagnostics: each layer at the exact range, with the data quick fixes need', () => {
  const m = marked(base(`    "a": { "cron": "0 3 * * *", "timezone": [["Europe/Pariss"]], "template": [["digst"]] }`));
  const d = service.diagnostics(service.analyze(m.text), service.NO_LIVE_DATA);
  assert.deepEqual(
    d.map((x) => [x.code, x.range]),
    [
      ['unknown-timezone', m.ranges[0]],
      ['unknown-template', m.ranges[1]],
    ],
  );
  assert.deepEqual(d[0]?.data, { code: 'unknown-timezone', suggestion: 'Europe/Paris' });
  assert.deepEqual(d[1]?.data, { code: 'unknown-template', suggestion: 'digest', name: 'digst' });
});

test('diagnostics: drift and conflicts only when the daemon\'s state is known', () => {
  const m = marked(base(`    "a": { "cron": "0 3 * * *", "template": "digest" }`).replace('"emails": {', '[["emails"]]: {'));
  const current: QueueState = { concurrency: 8, rateLimit: null, maxAttempts: 3, backoff: { strategy: 'exponential', baseMs: 1000, capMs: 60000, jitter: 0 }, timeoutMs: 30000, retentionMs: null, paused: false };
  const objects: LiveObject[] = [{ type: 'queue', name: 'emails', owner: 'p', applied: { concurrency: 2 }, current }];
  const doc = service.analyze(m.text);
  assert.deepEqual(service.diagnostics(doc, service.NO_LIVE_DATA), []);
  assert.deepEqual(service.diagnostics(doc, { queues: [{ name: 'emails', counts: counts() }] }), [], 'queues alone say nothing about drift');
  const drift = service.diagnostics(doc, { objects });
  assert.equal(drift.length, 1);
  assert.equal(drift[0]?.code, 'drift');
  assert.deepEqual(drift[0]?.range, m.ranges[0]);
  assert.match(String(drift[0]?.message), /changed on the daemon since the last apply \(concurrency: 2 → 8\)/);
});

test('diagnostics: a queue the file does not declare is information when the daemon has it, the file\'s warning when it does not', () => {
  const doc = service.analyze(base(`    "a": { "cron": "0 3 * * *", "template": "other" }`, `,\n    "other": { "queue": "elsewhere", "kind": "shell", "command": "true" }`));
  const offline = service.diagnostics(doc, service.NO_LIVE_DATA);
  assert.deepEqual(offline.map((d) => [d.code, d.severity]), [['unknown-queue', 2]]);
  const absent = service.diagnostics(doc, { queues: [] });
  assert.deepEqual(absent.map((d) => d.code), ['unknown-queue']);
  const present = service.diagnostics(doc, { queues: [{ name: 'elsewhere', counts: counts({ queued: 2 }) }] });
  assert.deepEqual(present.map((d) => [d.code, d.severity]), [['queue-on-daemon-only', 3]]);
});

test('hover on a cron: words, next five runs in the zone, the one moved by the change to summer time marked', () => {
  const m = marked(base(`    "a": { "cron": "30 2 |* * *", "timezone": "Europe/Paris", "template": "digest" }`));
  const value = text(service.hover(service.analyze(m.text), m.position, service.NO_LIVE_DATA, NOW));
  const runs = value.split('\n').filter((l) => l.startsWith('- '));
  assert.match(value, /^\*\*every day at 02:30\*\* \(Europe\/Paris\)/);
  assert.equal(runs.length, 5);
  // 29 March has no 02:30 in Paris: Debian cron runs it right after the jump, at 03:00 CEST.
  assert.match(runs[0] ?? '', /^- Sun 29 Mar 2026 03:00 CEST — moved by a daylight-saving change/);
  assert.equal(runs[1], '- Mon 30 Mar 2026 02:30 CEST');
  assert.equal(runs.filter((r) => r.includes('moved')).length, 1);
});

test('hover on an invalid cron: the reason once, with its asterisks escaped so Markdown shows them as they are', () => {
  const m = marked(base(`    "a": { "cron": "0 2|5 * * *", "template": "digest" }`));
  const value = text(service.hover(service.analyze(m.text), m.position, service.NO_LIVE_DATA, NOW));
  // It read "it takes 0-23, , *a range (1-5)… (*/10)*" in VS Code, after the expression twice.
  assert.equal(value, '**Not a valid cron expression.** 25 is out of range 0-23 in the hour field "25"; it takes 0-23, \\*, a range (1-5), a list (1,15) or a step (\\*/10).');
  assert.doesNotMatch(value.replace(/\\\*/g, '').replace(/^\*\*[^*]+\*\*/, ''), /\*/, 'no asterisk left for Markdown to read as emphasis');
});

test('hover on a backoff given in part shows it as it is in effect: "fixed:10s" keeps its queue\'s cap and jitter', () => {
  const m = marked(base(`    "a": { "cron": "0 3 * * *", "template": "digest" }`).replace('"params":', '"backoff": "fixed:1|0s", "params":'));
  const value = text(service.hover(service.analyze(m.text), m.position, service.NO_LIVE_DATA, NOW));
  assert.equal(value, "**In effect:** `fixed:10s:1h:0.3` — the cap and jitter come from the backoff of queue emails (a new queue's, unless the queue on the daemon has its own), so the waits vary by ±30%.");
  // The queue's backoff in the file is the one completed.
  const q = marked(base(`    "a": { "cron": "0 3 * * *", "template": "digest" }`).replace('"concurrency": 2', '"concurrency": 2, "backoff": "linear:2s:5m:0"').replace('"params":', '"backoff": "fixed:1|0s", "params":'));
  assert.equal(text(service.hover(service.analyze(q.text), q.position, service.NO_LIVE_DATA, NOW)), "**In effect:** `fixed:10s:5m:0` — the cap and jitter come from the backoff of queue emails in this file.");
  const whole = marked(base(`    "a": { "cron": "0 3 * * *", "template": "digest" }`).replace('"concurrency": 2', '"concurrency": 2, "backoff": "linear:2s:5m|:0"'));
  assert.equal(text(service.hover(service.analyze(whole.text), whole.position, service.NO_LIVE_DATA, NOW)), '**Backoff** `linear:2s:5m:0`: linear, from 2s up to 5m, ±0%.');
});

test('hover on a template reference shows the template; on a key, the field\'s documentation; on a queue, its live counts', () => {
  const m = marked(base(`    "a": { "cron": "0 3 * * *", "template": "dig|est" }`));
  const doc = service.analyze(m.text);
  const t = text(service.hover(doc, m.position, service.NO_LIVE_DATA, NOW));
  assert.match(t, /\*\*Template digest\*\* — shell job on queue `emails`/);
  assert.match(t, /echo \{\{who\}\}/);
  assert.match(t, /`who` \(default `all`\)/);

  const k = marked(base(`    "a": { "cr|on": "0 3 * * *", "template": "digest" }`));
  assert.match(text(service.hover(service.analyze(k.text), k.position, service.NO_LIVE_DATA, NOW)), /^\*\*cron\*\* — When it fires/);

  const q = marked(base(`    "a": { "cron": "0 3 * * *", "template": "digest" }`).replace('"emails": {', '"em|ails": {'));
  const qdoc = service.analyze(q.text);
  assert.equal(text(service.hover(qdoc, q.position, service.NO_LIVE_DATA, NOW)), '**Queue emails**');
  assert.match(text(service.hover(qdoc, q.position, { queues: [{ name: 'emails', counts: counts({ queued: 3, dead: 1, completed: 7 }) }] }, NOW)), /On the daemon: 3 queued · 1 dead · 7 completed/);
});

function labels(items: CompletionItem[]): string[] {
  return items.map((i) => i.label);
}

test('a queue\'s ageing: hover documents it, a bad value is a diagnostic at the value, completion offers the examples', () => {
  const k = marked(base(`    "a": { "cron": "0 3 * * *", "template": "digest" }`).replace('"emails": {', '"emails": { "age|ing": "1 per 10m",'));
  assert.match(text(service.hover(service.analyze(k.text), k.position, service.NO_LIVE_DATA, NOW)), /^\*\*ageing\*\* — Priority ageing, so that low-priority jobs are not starved/);
  const bad = base(`    "a": { "cron": "0 3 * * *", "template": "digest" }`).replace('"emails": {', '"emails": { "ageing": "fast",');
  const problems = service.diagnostics(service.analyze(bad), service.NO_LIVE_DATA).filter((d) => d.code === 'invalid-ageing');
  assert.equal(problems.length, 1);
  const message = problems[0]?.message;
  assert.ok(typeof message === 'string');
  assert.match(message, /is not a priority ageing: use N per DURATION/);
  const c = marked(base(`    "a": { "cron": "0 3 * * *", "template": "digest" }`).replace('"emails": {', '"emails": { "ageing": |,'));
  const labels = service.completion(service.analyze(c.text), c.position, service.NO_LIVE_DATA).map((i) => i.label);
  assert.ok(labels.some((l) => l.includes('1 per 10m')), labels.join(', '));
});

test('completion: queue names from the file and the daemon, template names, kinds, time zones, backoff strategies', () => {
  const q = marked(base(`    "a": { "cron": "0 3 * * *", "template": "digest" }`, `,\n    "t2": { "queue": "|", "kind": "shell", "command": "true" }`));
  const qi = service.completion(service.analyze(q.text), q.position, { queues: [{ name: 'live', counts: counts({ queued: 1 }) }] });
  assert.deepEqual(labels(qi), ['emails', 'live']);
  // Inside a string, the whole string is replaced, quotes included.
  assert.deepEqual((qi[1]?.textEdit as TextEdit).newText, '"live"');

  const t = marked(base(`    "a": { "cron": "0 3 * * *", "template": | }`));
  assert.deepEqual(labels(service.completion(service.analyze(t.text), t.position, service.NO_LIVE_DATA)), ['digest']);

  const k = marked(base(`    "a": { "cron": "0 3 * * *", "template": "digest" }`, `,\n    "t2": { "queue": "emails", "kind": |, "payload": 1 }`));
  assert.deepEqual(labels(service.completion(service.analyze(k.text), k.position, service.NO_LIVE_DATA)), ['shell', 'http']);

  const z = marked(base(`    "a": { "cron": "0 3 * * *", "timezone": |, "template": "digest" }`));
  const zones = labels(service.completion(service.analyze(z.text), z.position, service.NO_LIVE_DATA));
  assert.ok(zones.includes('Europe/Paris') && zones.includes('UTC') && zones.includes('Australia/Lord_Howe'));

  const b = marked(base(`    "a": { "cron": "0 3 * * *", "template": "digest" }`).replace('"concurrency": 2', '"concurrency": 2, "backoff": |'));
  const backoffs = labels(service.completion(service.analyze(b.text), b.position, service.NO_LIVE_DATA));
  for (const s of ['exponential', 'linear', 'fixed']) assert.ok(backoffs.includes(s), backoffs.join());
});

test('completion: field names not yet written, required first, with their documentation; only the kind\'s own fields', () => {
  const m = marked(base(`    "a": { "cron": "0 3 * * *", | }`));
  const items = service.completion(service.analyze(m.text), m.position, service.NO_LIVE_DATA);
  assert.equal(labels(items).includes('cron'), false);
  // A schedule needs one of "template" and "workflow": both are offered, neither is required.
  for (const field of ['template', 'workflow']) assert.ok(labels(items).includes(field), labels(items).join());
  const tz = items.find((i) => i.label === 'timezone');
  assert.match(JSON.stringify(tz?.documentation), /IANA time zone/);
  assert.equal(tz?.insertText, '"timezone": ');

  const shell = marked(base(`    "a": { "cron": "0 3 * * *", "template": "digest" }`).replace('"command": "echo {{who}}",', '"command": "echo {{who}}", |'));
  const fields = labels(service.completion(service.analyze(shell.text), shell.position, service.NO_LIVE_DATA));
  assert.ok(fields.includes('cwd') && fields.includes('env'));
  assert.ok(!fields.includes('url') && !fields.includes('payload'), fields.join());
});

test('code lenses: Apply with the number of changes when the daemon\'s state is known; Run now, Enqueue and counts', () => {
  const doc = service.analyze(base(`    "a": { "cron": "0 3 * * *", "template": "digest" }`));
  const offline = service.codeLenses(doc, URI, service.NO_LIVE_DATA).map((l) => l.command?.title);
  assert.deepEqual(offline, ['Enqueue', 'Run now']);
  const lenses = service.codeLenses(doc, URI, { queues: [{ name: 'emails', counts: counts({ queued: 3, dead: 1 }) }], objects: [] });
  assert.deepEqual(
    lenses.map((l) => [l.command?.title, l.command?.command, l.command?.arguments, l.range.start.line]),
    [
      ['Apply (3 changes)', 'spool.apply', [URI], 0],
      ['3 queued · 1 dead', '', undefined, 2],
      ['Enqueue', 'spool.enqueueTemplate', [URI, 'digest'], 4],
      ['Run now', 'spool.runSchedule', [URI, 'a'], 7],
    ],
  );
});

test('navigation: definition and references between schedules, templates and queues; the outline', () => {
  const m = marked(`{
  "project": "p",
  "queues": { [["emails"]]: {} },
  "templates": { [["digest"]]: { "queue": [["em|ails"]], "kind": "shell", "command": "true" } },
  "schedules": { "a": { "cron": "@daily", "template": [["digest"]] }, "b": { "cron": "@hourly", "template": [["digest"]] } }
}`);
  const doc = service.analyze(m.text);
  const [queueKey, templateKey, queueRef, ref1, ref2] = m.ranges;
  assert.deepEqual(service.definition(doc, m.position), queueKey);
  assert.deepEqual(service.references(doc, m.position, true), [queueKey, queueRef]);
  assert.deepEqual(service.references(doc, templateKey?.start ?? m.position, false), [ref1, ref2]);
  assert.deepEqual(service.definition(doc, ref2?.start ?? m.position), templateKey);
  const symbols = service.documentSymbols(doc);
  assert.deepEqual(symbols.map((s) => [s.name, s.children?.map((c) => `${c.name}: ${c.detail ?? ''}`)]), [
    ['queues', ['emails: ']],
    ['templates', ['digest: shell on emails']],
    ['schedules', ['a: @daily → digest', 'b: @hourly → digest']],
  ]);
});

test('a schedule\'s workflow: completion from the file and the daemon, definition and references', () => {
  const source = (value: string): string => `{
  "project": "p",
  "queues": { "q": {} },
  "workflows": { [["release"]]: { "steps": { "a": { "queue": "q", "shell": "true" } } } },
  "schedules": { "nightly": { "cron": "@daily", "workflow": ${value} }, "weekly": { "cron": "@weekly", "workflow": [["release"]] } }
}`;
  const c = marked(source('|').replace(/\[\[|\]\]/g, ''));
  const live: service.LiveData = { objects: [{ type: 'workflow', name: 'deploy', current: { params: {}, steps: [] } }] };
  const items = service.completion(service.analyze(c.text), c.position, live);
  assert.deepEqual(items.map((i) => [i.label, i.detail]), [['release', 'declared in this file'], ['deploy', 'on the daemon']]);

  const m = marked(source('[["rel|ease"]]'));
  const doc = service.analyze(m.text);
  const [key, ref1, ref2] = m.ranges;
  assert.deepEqual(service.definition(doc, m.position), key);
  assert.deepEqual(service.references(doc, m.position, true), [key, ref1, ref2]);
  assert.deepEqual(service.references(doc, key?.start ?? m.position, false), [ref1, ref2]);
});

function applyEdits(source: string, edits: TextEdit[]): string {
  const doc = service.analyze(source);
  const sorted = [...edits].sort((a, b) => service.offsetAt(doc, b.range.start) - service.offsetAt(doc, a.range.start));
  let out = source;
  for (const e of sorted) out = out.slice(0, service.offsetAt(doc, e.range.start)) + e.newText + out.slice(service.offsetAt(doc, e.range.end));
  return out;
}

test('quick fixes: the closest time zone, and the missing template or queue created in the file', () => {
  const source = base(`    "a": { "cron": "0 3 * * *", "timezone": "Europe/Pariss", "template": "nightly" }`, `,\n    "other": { "queue": "elsewhere", "kind": "shell", "command": "true" }`);
  const doc = service.analyze(source);
  const diagnostics: Diagnostic[] = service.diagnostics(doc, service.NO_LIVE_DATA);
  const actions = service.codeActions(doc, URI, diagnostics);
  // In the order of the text: the template "other" comes before the schedule.
  assert.deepEqual(actions.map((a) => a.title), ['Create queue "elsewhere" in this file', 'Change to "Europe/Paris"', 'Create template "nightly" in this file']);
  for (const action of actions) {
    const fixed = applyEdits(source, action.edit?.changes?.[URI] ?? []);
    const after = service.diagnostics(service.analyze(fixed), service.NO_LIVE_DATA).map((d) => d.code);
    assert.equal(after.length, diagnostics.length - 1, `${action.title}:\n${fixed}`);
  }
  const created = applyEdits(source, actions[2]?.edit?.changes?.[URI] ?? []);
  assert.match(created, /"nightly": \{\n {6}"queue": "emails",\n {6}"kind": "shell",\n {6}"command": "echo TODO"\n {4}\}/);
});

test('bad input never throws: truncated at every point, junk, unknown fields', () => {
  const source = base(`    "a": { "cron": "0 3 * * *", "timezone": "Europe/Paris", "template": "digest", "bogus": [1, {"x": null}] }`);
  const live = { queues: [{ name: 'emails', counts: counts() }], objects: [] };
  for (let cut = 0; cut <= source.length; cut += 7) {
    const doc = service.analyze(source.slice(0, cut));
    const end = doc.lines.position(cut);
    service.diagnostics(doc, live);
    service.hover(doc, end, live, NOW);
    service.completion(doc, end, live);
    service.codeLenses(doc, URI, live);
    service.documentSymbols(doc);
    service.definition(doc, end);
    service.codeActions(doc, URI, service.diagnostics(doc, live));
  }
  for (const junk of ['', '[]', 'null', '"x"', '}{', '{"schedules": 3}', '{"queues": {"a": []}}', '\u0000\uffff{']) {
    const doc = service.analyze(junk);
    service.diagnostics(doc, live);
    service.completion(doc, { line: 0, character: 1 }, live);
    service.hover(doc, { line: 5, character: 50 }, live, NOW);
  }
});

test('code lenses of workflows: Run workflow on each one without errors, and the last run\'s counts when the daemon knows them', () => {
  const text = `{
  "project": "p",
  "queues": { "q": {} },
  "workflows": {
    "ok": { "params": { "v": { "default": "1" } }, "steps": { "a": { "queue": "q", "shell": "echo {{v}}" }, "b": { "queue": "q", "shell": "echo b", "needs": ["a"] } } },
    "broken": { "steps": { "a": { "queue": "q", "shell": "echo", "needs": ["nope"] } } }
  }
}`;
  const doc = service.analyze(text);
  const offline = service.codeLenses(doc, URI, service.NO_LIVE_DATA);
  assert.deepEqual(
    offline.map((l) => [l.command?.title, l.command?.command, l.command?.arguments, l.range.start.line]),
    [['Run workflow', 'spool.runWorkflow', [URI, 'ok'], 4]],
  );
  const run = { id: 'r1', workflow: 'ok', params: { v: '1' }, state: 'running' as const, counts: counts({ completed: 4, running: 1 }), total: 5, source: 'user', createdAt: 1_000, endedAt: null };
  const live = service.codeLenses(doc, URI, { lastRuns: new Map([['ok', run]]) }, 121_000).map((l) => l.command?.title);
  assert.deepEqual(live, ['Run workflow', 'last run 2m ago: 1 running, 4 succeeded']);
  const failed = service.codeLenses(doc, URI, { lastRuns: new Map([['ok', { ...run, state: 'failed' as const, counts: counts({ completed: 1, dead: 1 }) }]]) }, 3_000).map((l) => l.command?.title);
  assert.deepEqual(failed, ['Run workflow', 'last run 2s ago failed: 1 succeeded, 1 failed']);
  assert.deepEqual(service.workflowRunTarget(doc, 'ok', { w: '2' }), { ok: false, message: 'Cannot start a run: workflow "ok" has no parameter "w" (its parameters: v).' });
  const target = service.workflowRunTarget(doc, 'ok', {});
  assert.ok(target.ok && target.value.workflow.steps.length === 2);
  assert.equal(service.workflowRunTarget(doc, 'broken', {}).ok, false);
});
