/**
 * "Reveal in spool.jsonc", its pure part: which range of a jobs file's text declares a queue or
 * schedule a project owns, and what the tree items owned by a project say.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { findDeclaration, ownerDescription, ownerTooltip } from '../../extension/jobsFileDeclaration';

const FILE = `// The team's jobs.
{
  "project": "web",
  "queues": {
    "emails": { "concurrency": 2 },
    "builds": {}
  },
  "templates": { "send": { "queue": "emails", "kind": "shell", "command": "true" } },
  "schedules": {
    "nightly": { "cron": "0 3 * * *", "template": "send" }
  }
}
`;

/** The 0-based line and character of the first `needle` in FILE, and where it ends. */
function rangeOf(needle: string): [number, number, number, number] {
  const at = FILE.indexOf(needle);
  assert.ok(at >= 0, needle);
  const before = FILE.slice(0, at).split('\n');
  const line = before.length - 1;
  const character = before[before.length - 1]?.length ?? 0;
  return [line, character, line, character + needle.length];
}

function range(d: ReturnType<typeof findDeclaration>): [number, number, number, number] | string {
  return d.found === 'declared' ? [d.key.start.line, d.key.start.character, d.key.end.line, d.key.end.character] : d.found;
}

test('a queue the project declares: the range of its name, quotes included', () => {
  assert.deepEqual(range(findDeclaration(FILE, 'web', 'queue', 'builds')), rangeOf('"builds"'));
  assert.deepEqual(range(findDeclaration(FILE, 'web', 'queue', 'emails')), rangeOf('"emails"'));
});

test('a schedule the project declares: the range of its key, not of a value that says the same', () => {
  const text = FILE.replace('"template": "send"', '"template": "send", "params": { "x": "nightly" }');
  assert.deepEqual(range(findDeclaration(text, 'web', 'schedule', 'nightly')), rangeOf('"nightly"'));
});

test('the type counts: a queue and a template of the same name are told apart', () => {
  assert.equal(range(findDeclaration(FILE, 'web', 'queue', 'send')), 'project');
  assert.equal(range(findDeclaration(FILE, 'web', 'schedule', 'emails')), 'project');
});

test('another project\'s file, or a file that is no jobs file, declares nothing of this one', () => {
  assert.equal(range(findDeclaration(FILE, 'api', 'queue', 'builds')), 'other');
  assert.equal(range(findDeclaration('{ "name": "a package" }', 'web', 'queue', 'builds')), 'other');
  assert.equal(range(findDeclaration('', 'web', 'queue', 'builds')), 'other');
});

test('the owner\'s file without the object (removed since the last apply) says so', () => {
  assert.equal(range(findDeclaration(FILE.replace('"builds": {}', '"logs": {}'), 'web', 'queue', 'builds')), 'project');
});

test('a file with errors still finds the key being edited', () => {
  const text = FILE.replace('"0 3 * * *"', '"0 3 * * 9"').replace('"concurrency": 2', '"concurrency": "two"');
  assert.deepEqual(range(findDeclaration(text, 'web', 'queue', 'emails')), rangeOf('"emails"'));
  assert.deepEqual(range(findDeclaration(text, 'web', 'schedule', 'nightly')), rangeOf('"nightly"'));
});

test('an owned item names its project in the description and says what a change here becomes', () => {
  assert.equal(ownerDescription('web'), 'spool.jsonc (project web)');
  assert.match(ownerTooltip('web'), /^Declared in spool\.jsonc of project web; changes made here are reported as drift by spool plan\.$/);
});
