/**
 * docs/protocol.md documents exactly the methods and notifications of the protocol's tables:
 * a method added to the table without a section, or a section left behind for a method that
 * is gone, fails here.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { METHOD_NAMES, METHODS, NOTIFICATION_NAMES, NOTIFICATIONS } from '../../shared/protocol';

const doc = fs.readFileSync(path.join(__dirname, '..', '..', 'docs', 'protocol.md'), 'utf8');

/** The part of the document from the heading `## title` to the next `## ` heading. */
function section(title: string): string {
  const start = doc.indexOf(`\n## ${title}\n`);
  assert.ok(start >= 0, `docs/protocol.md has no "## ${title}" section`);
  const end = doc.indexOf('\n## ', start + 1);
  return doc.slice(start, end < 0 ? undefined : end);
}

/** Names in backticks in `####` headings: "#### `jobs.cancelMany`, `jobs.retryMany`" names two. */
function documentedMethods(): string[] {
  const names: string[] = [];
  for (const line of section('Methods').split('\n')) {
    if (!line.startsWith('#### ')) continue;
    for (const match of line.matchAll(/`([^`]+)`/g)) names.push(match[1]!);
  }
  return names;
}

/** The first column of the notifications table. */
function documentedNotifications(): string[] {
  const names: string[] = [];
  for (const line of section('Notifications').split('\n')) {
    const match = /^\| `([^`]+)` \| `([^`]+)` \|/.exec(line);
    if (match) names.push(match[1]!);
  }
  return names;
}

function sorted(names: readonly string[]): string[] {
  return [...names].sort();
}

test('every method of the table has a section in docs/protocol.md, and every section a method', () => {
  const documented = documentedMethods();
  const missing = METHOD_NAMES.filter((name) => !documented.includes(name));
  const extra = documented.filter((name) => !(name in METHODS));
  assert.deepEqual(missing, [], `methods without a "####" section in docs/protocol.md: ${missing.join(', ')}`);
  assert.deepEqual(extra, [], `sections of docs/protocol.md for methods the table does not declare: ${extra.join(', ')}`);
  assert.deepEqual(sorted(documented), sorted(METHOD_NAMES), 'a method is documented twice');
});

test('the notifications table of docs/protocol.md lists every notification with its topic', () => {
  assert.deepEqual(sorted(documentedNotifications()), sorted(NOTIFICATION_NAMES));
  for (const line of section('Notifications').split('\n')) {
    const match = /^\| `([^`]+)` \| `([^`]+)` \|/.exec(line);
    if (!match) continue;
    const name = NOTIFICATION_NAMES.find((n) => n === match[1]);
    assert.ok(name, `docs/protocol.md lists a notification the table does not declare: ${match[1]}`);
    assert.equal(match[2], NOTIFICATIONS[name].topic, `the topic of ${name} in docs/protocol.md`);
  }
});
