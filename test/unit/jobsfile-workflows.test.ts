/**
 * Workflows in the jobs file: the release example read into its steps (a matrix, a template
 * step, the shell and http shorthands, needs with conditions); the checks across steps at their
 * exact ranges — an unknown step in `needs`, a cycle named step by step, a matrix with no value,
 * a `{{name}}` neither a parameter nor a matrix variable, a template step's parameters; and a
 * run's jobs made from a workflow and its values (`workflowJobs`). Fixtures mark the range they
 * expect with ⟦…⟧.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseJobsFile, workflowJobs, type DeclaredWorkflow, type Problem, type ProblemCode } from '../../shared/jobsfile';

/** The issue's example: build, test on three targets, package, deploy, clean up whatever happens. */
const RELEASE = `{
  "project": "shop",
  "queues": { "builds": {}, "deploys": {} },
  "templates": {
    "package": { "queue": "builds", "kind": "shell", "command": "make package VERSION={{version}} CHANNEL={{channel}}", "params": { "version": {}, "channel": { "default": "stable" } } }
  },
  "workflows": {
    "release": {
      "description": "Build, test on each target, package, deploy; clean up whatever happens",
      "params": { "version": { "type": "string" } },
      "steps": {
        "build":   { "queue": "builds", "shell": "make build VERSION={{version}}" },
        "test":    { "queue": "builds", "shell": "make test TARGET={{target}}", "needs": ["build"], "matrix": { "target": ["linux", "mac", "win"] } },
        "package": { "template": "package", "needs": ["test"] },
        "deploy":  { "queue": "deploys", "http": { "url": "https://deploy.example.test/{{version}}" }, "needs": ["package"] },
        "cleanup": { "queue": "builds", "shell": "make clean", "needs": [{ "step": "deploy", "on": "finished" }] }
      }
    }
  }
}`;

/** A file with one workflow "w" of the given steps (and parameters). */
const workflow = (steps: string, params = '{ "version": {} }'): string => `{
  "project": "shop",
  "queues": { "q": {} },
  "templates": { "pkg": { "queue": "q", "kind": "shell", "command": "pkg {{version}}", "params": { "version": {} } } },
  "workflows": { "w": { "params": ${params}, "steps": { ${steps} } } }
}`;

/** The fixture without its ⟦…⟧ marks, and the range they enclosed. */
function marked(fixture: string): { text: string; offset: number; length: number } {
  const open = fixture.indexOf('⟦');
  const close = fixture.indexOf('⟧');
  assert.ok(open >= 0 && close > open, 'the fixture marks a range with ⟦…⟧');
  return { text: fixture.slice(0, open) + fixture.slice(open + 1, close) + fixture.slice(close + 1), offset: open, length: close - open - 1 };
}

/** Asserts exactly one problem, with `code`, over the marked range; returns it. */
function expectOne(fixture: string, code: ProblemCode): Problem {
  const { text, offset, length } = marked(fixture);
  const { problems } = parseJobsFile(text);
  assert.equal(problems.length, 1, `one problem expected, got: ${problems.map((p) => `${p.code} ${p.message}`).join(' | ')}`);
  const [problem] = problems;
  assert.ok(problem !== undefined);
  assert.equal(problem.code, code, problem.message);
  assert.equal(text.slice(problem.range.offset, problem.range.offset + problem.range.length), text.slice(offset, offset + length));
  assert.equal(problem.range.offset, offset);
  return problem;
}

function release(): DeclaredWorkflow {
  const result = parseJobsFile(RELEASE);
  assert.deepEqual(result.problems, []);
  assert.ok(result.declaration !== null);
  const [wf] = result.workflows;
  assert.ok(wf !== undefined);
  return wf;
}

test('the release example reads into its steps: shorthands, a matrix, a template step with its parameters filled, needs with their conditions', () => {
  const wf = release();
  assert.equal(wf.name, 'release');
  assert.deepEqual(wf.params, { version: { type: 'string' } });
  assert.deepEqual(
    wf.steps.map((s) => s.name),
    ['build', 'test', 'package', 'deploy', 'cleanup'],
  );
  const [build, test_, pkg, deploy, cleanup] = wf.steps;
  assert.deepEqual(build, { name: 'build', queue: 'builds', kind: 'shell', payload: { command: 'make build VERSION={{version}}' }, options: {}, needs: [] });
  assert.deepEqual(test_?.matrix, { target: ['linux', 'mac', 'win'] });
  assert.deepEqual(test_?.needs, [{ step: 'build', on: 'succeeded' }]);
  // The template's own parameters: "version" stays the workflow's placeholder, "channel" takes its default.
  assert.deepEqual(pkg, { name: 'package', template: 'package', queue: 'builds', kind: 'shell', payload: { command: 'make package VERSION={{version}} CHANNEL=stable' }, options: {}, needs: [{ step: 'test', on: 'succeeded' }] });
  assert.deepEqual(deploy?.payload, { url: 'https://deploy.example.test/{{version}}' });
  assert.equal(deploy?.kind, 'http');
  assert.deepEqual(cleanup?.needs, [{ step: 'deploy', on: 'finished' }]);
});

test('a run of the release example is seven jobs, each after the jobs it needs, with the values substituted', () => {
  const jobs = workflowJobs(release(), { version: '1.2' });
  assert.ok(jobs.ok, jobs.ok ? '' : jobs.message);
  assert.deepEqual(
    jobs.value.map((j) => j.label),
    ['build', 'test (linux)', 'test (mac)', 'test (win)', 'package', 'deploy', 'cleanup'],
  );
  assert.deepEqual(jobs.value[0]?.job, { queue: 'builds', kind: 'shell', payload: { command: 'make build VERSION=1.2' } });
  assert.deepEqual(jobs.value[2]?.job.payload, { command: 'make test TARGET=mac' });
  assert.deepEqual(jobs.value[2]?.matrix, { target: 'mac' });
  assert.deepEqual(jobs.value[2]?.dependsOn, [{ index: 0, on: 'succeeded' }]);
  // The fan-in: package waits for every test job.
  assert.deepEqual(jobs.value[4]?.dependsOn, [1, 2, 3].map((index) => ({ index, on: 'succeeded' })));
  assert.deepEqual(jobs.value[4]?.job.payload, { command: 'make package VERSION=1.2 CHANNEL=stable' });
  assert.deepEqual(jobs.value[5]?.job.payload, { url: 'https://deploy.example.test/1.2' });
  assert.deepEqual(jobs.value[6]?.dependsOn, [{ index: 5, on: 'finished' }]);
});

test('steps come after the steps they need whatever the order they are written in, and a matrix of two variables makes every combination', () => {
  const text = workflow('"last": { "queue": "q", "shell": "x", "needs": ["first"] }, "first": { "queue": "q", "shell": "{{os}}-{{arch}}", "matrix": { "os": ["linux", "mac"], "arch": ["arm", "x64"] } }', '{}');
  const { problems, workflows } = parseJobsFile(text);
  assert.deepEqual(problems, []);
  const wf = workflows[0];
  assert.ok(wf !== undefined);
  const jobs = workflowJobs(wf, {});
  assert.ok(jobs.ok);
  assert.deepEqual(
    jobs.value.map((j) => j.label),
    ['first (linux, arm)', 'first (linux, x64)', 'first (mac, arm)', 'first (mac, x64)', 'last'],
  );
  assert.equal(jobs.value[4]?.dependsOn.length, 4);
});

test("a run's values are checked against the workflow's parameters: unknown, missing, and of the wrong type are refused in words", () => {
  const wf = release();
  const unknown = workflowJobs(wf, { version: '1', verison: '2' });
  assert.ok(!unknown.ok);
  assert.match(unknown.message, /has no parameter "verison" \(its parameters: version\)\. Did you mean "version"\?/);
  const missing = workflowJobs(wf, {});
  assert.ok(!missing.ok);
  assert.match(missing.message, /needs a value for "version": it has no default \(give it with --param version=…\)/);
  const typed = parseJobsFile(workflow('"a": { "queue": "q", "shell": "sleep {{n}}" }', '{ "n": { "type": "number", "default": "3" } }')).workflows[0];
  assert.ok(typed !== undefined);
  const wrong = workflowJobs(typed, { n: 'three' });
  assert.ok(!wrong.ok);
  assert.match(wrong.message, /parameter "n" of workflow "w" must be a number \(got "three"\)/);
  const byDefault = workflowJobs(typed, {});
  assert.ok(byDefault.ok);
  assert.deepEqual(byDefault.value[0]?.job.payload, { command: 'sleep 3' });
});

test('a cycle is named step by step at the need that closes it', () => {
  const problem = expectOne(workflow('"build": { "queue": "q", "shell": "b", "needs": ["test"] }, "test": { "queue": "q", "shell": "t", "needs": [⟦"build"⟧] }'), 'workflow-cycle');
  assert.match(problem.message, /workflows\.w has a cycle: build → test → build\./);
  assert.deepEqual(problem.path, ['workflows', 'w', 'steps', 'test', 'needs']);
});

test('a longer cycle is named whole, and a step that needs itself is a cycle of one', () => {
  const three = expectOne(workflow('"a": { "queue": "q", "shell": "a", "needs": ["c"] }, "b": { "queue": "q", "shell": "b", "needs": [⟦"a"⟧] }, "c": { "queue": "q", "shell": "c", "needs": [{ "step": "b", "on": "finished" }] }'), 'workflow-cycle');
  assert.match(three.message, /a → c → b → a/);
  const self = expectOne(workflow('"a": { "queue": "q", "shell": "a", "needs": [⟦"a"⟧] }'), 'workflow-cycle');
  assert.match(self.message, /has a cycle: a → a\./);
  const { declaration } = parseJobsFile(workflow('"a": { "queue": "q", "shell": "a", "needs": ["a"] }'));
  assert.equal(declaration, null, 'a file with a cycle is not applied');
});

test('a need naming no step of the workflow is refused with the closest name', () => {
  const problem = expectOne(workflow('"build": { "queue": "q", "shell": "b" }, "test": { "queue": "q", "shell": "t", "needs": [⟦"biuld"⟧] }'), 'unknown-step');
  assert.match(problem.message, /names the step "biuld", which workflows\.w does not have\. Did you mean "build"\? \(its steps: build, test\)/);
  assert.equal(problem.suggestion, 'build');
});

test("a need's condition is one of succeeded, failed, finished", () => {
  const problem = expectOne(workflow('"a": { "queue": "q", "shell": "a" }, "b": { "queue": "q", "shell": "b", "needs": [{ "step": "a", "on": ⟦"done"⟧ }] }'), 'not-allowed');
  assert.match(problem.message, /must be one of succeeded, failed, finished/);
});

test('a placeholder that is neither a parameter of the workflow nor a matrix variable of the step is refused at its braces', () => {
  const problem = expectOne(workflow('"a": { "queue": "q", "shell": "make {{version}} ⟦{{target}}⟧" }'), 'undeclared-param');
  assert.match(problem.message, /workflows\.w\.steps\.a\.shell uses \{\{target\}\}, which neither workflows\.w\.params nor this step's matrix declares/);
  // Another step's matrix variable is not in scope.
  expectOne(workflow('"a": { "queue": "q", "shell": "{{t}}", "matrix": { "t": ["1", "2"] } }, "b": { "queue": "q", "shell": "⟦{{t}}⟧", "needs": ["a"] }'), 'undeclared-param');
  expectOne(workflow('"a": { "queue": "q", "http": { "url": "https://x.test/⟦{{where}}⟧" } }'), 'undeclared-param');
});

test('a matrix variable with no value is refused: the step would make no job, and nothing could wait for it', () => {
  const problem = expectOne(workflow('"a": { "queue": "q", "shell": "{{t}}", "matrix": { "t": ⟦[]⟧ } }'), 'empty-matrix');
  assert.match(problem.message, /workflows\.w\.steps\.a\.matrix\.t lists no value: the step would make no job, so nothing could wait for it/);
});

test('a matrix variable no field uses is a warning: its jobs would all be the same', () => {
  const problem = expectOne(workflow('"a": { "queue": "q", "shell": "make", "matrix": { ⟦"t"⟧: ["1", "2"] } }'), 'unused-matrix');
  assert.equal(problem.severity, 'warning');
});

test("a template step takes the template's job: its job fields are refused, its parameters are checked", () => {
  const field = expectOne(workflow('"a": { "template": "pkg", ⟦"queue"⟧: "q" }'), 'not-allowed');
  assert.match(field.message, /runs the template "pkg": "queue" is the template's/);
  expectOne(workflow('"a": { "template": "pkg", "params": { ⟦"versoin"⟧: "1" } }'), 'unknown-param');
  // Without a workflow parameter of the same name, the template's parameter needs a value.
  expectOne(workflow('"a": { "template": ⟦"pkg"⟧ }', '{}'), 'missing-param');
  expectOne(workflow('"a": { "template": ⟦"pgk"⟧ }'), 'unknown-template');
  const given = parseJobsFile(workflow('"a": { "template": "pkg", "params": { "version": "v{{version}}" } }'));
  assert.deepEqual(given.problems, []);
  assert.deepEqual(given.workflows[0]?.steps[0]?.payload, { command: 'pkg v{{version}}' });
});

test("an inline step's queue the file does not declare is a warning, as a template's is", () => {
  const problem = expectOne(workflow('"a": { "queue": ⟦"qq"⟧, "shell": "x" }'), 'unknown-queue');
  assert.equal(problem.severity, 'warning');
  assert.match(problem.message, /workflows\.w\.steps\.a\.queue names the queue "qq", which this file does not declare under "queues"/);
  assert.deepEqual(parseJobsFile(workflow('"a": { "template": "pkg" }')).problems, [], 'a template step\'s queue is checked at the template');
});

test('an inline step needs a queue and a job, written one way', () => {
  expectOne(workflow('⟦"a"⟧: { "queue": "q" }'), 'missing-required');
  expectOne(workflow('⟦"a"⟧: { "shell": "x" }'), 'missing-required');
  expectOne(workflow('"a": { "queue": "q", "shell": "x", "kind": "shell", ⟦"command"⟧: "y" }'), 'not-allowed');
  const custom = parseJobsFile(workflow('"a": { "queue": "q", "kind": "resize", "payload": { "size": "{{version}}" } }'));
  assert.deepEqual(custom.problems, []);
  assert.deepEqual(custom.workflows[0]?.steps[0]?.payload, { size: '{{version}}' });
});

test('a workflow of more steps than allowed is one problem, at its steps', () => {
  const steps = Array.from({ length: 500 }, (_, i) => `"s${i}": { "queue": "q", "shell": "x"${i > 0 ? `, "needs": ["s${i - 1}"]` : ''} }`).join(', ');
  const { problems } = parseJobsFile(workflow(steps));
  assert.deepEqual(
    problems.map((p) => p.code),
    ['out-of-range'],
  );
  assert.match(problems[0]?.message ?? '', /workflows\.w\.steps has 500 steps; a workflow may have up to 200/);
});

/** RELEASE with a schedule `nightly` of the given fields added. */
const scheduled = (fields: string): string => RELEASE.replace(/\n}$/, `,\n  "schedules": { "nightly": { "cron": "0 2 * * *", ${fields} } }\n}`);

test('a schedule starts a workflow: read with its values; an unknown workflow, both template and workflow, and values the workflow refuses are reported', () => {
  const ok = parseJobsFile(scheduled('"workflow": "release", "params": { "version": "2.0" }, "overlapPolicy": "skip"'));
  assert.deepEqual(ok.problems, []);
  const s = ok.declaration?.schedules[0];
  assert.deepEqual([s?.workflow, s?.template, s?.params, s?.overlapPolicy], ['release', '', { version: '2.0' }, 'skip']);

  const unknown = parseJobsFile(scheduled('"workflow": "relase", "params": { "version": "2.0" }'));
  const u = unknown.problems.find((p) => p.code === 'unknown-workflow');
  assert.ok(u, unknown.problems.map((p) => p.code).join());
  assert.deepEqual(u.path, ['schedules', 'nightly', 'workflow']);
  assert.match(u.message, /names the workflow "relase", which this file does not declare\. Did you mean "release"\?/);
  assert.equal(unknown.declaration?.schedules.length ?? 0, 0);

  const both = parseJobsFile(scheduled('"workflow": "release", "template": "package"'));
  assert.match(both.problems.find((p) => p.code === 'not-allowed')?.message ?? '', /gives both "template" and "workflow"/);

  const neither = parseJobsFile(scheduled('"enabled": true'));
  assert.match(neither.problems.find((p) => p.code === 'missing-required')?.message ?? '', /needs "template" \(the template it enqueues\) or "workflow"/);

  const missing = parseJobsFile(scheduled('"workflow": "release"'));
  const m = missing.problems.find((p) => p.code === 'workflow-params');
  assert.match(m?.message ?? '', /needs a value for "version": it has no default: add it under "params"/);
  const extra = parseJobsFile(scheduled('"workflow": "release", "params": { "version": "2", "verison": "3" }'));
  assert.match(extra.problems.find((p) => p.code === 'workflow-params')?.message ?? '', /has no parameter "verison".*Did you mean "version"\?/);
});
