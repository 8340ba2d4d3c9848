/**
 * Template parameters: `{{name}}` found with its place, substituted in every string of the
 * payload (never in keys, never where the braces hold no parameter name), and `templateToJob`
 * turning a template into the protocol's enqueue params, refusing a missing or unknown value.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseJobsFile, placeholders, substitute, templateToJob, type DeclaredTemplate } from '../../shared/jobsfile';

function template(text: string, name: string): DeclaredTemplate {
  const result = parseJobsFile(text);
  const found = result.declaration?.templates.find((t) => t.name === name);
  assert.ok(found !== undefined, JSON.stringify(result.problems));
  return found;
}

const FILE = `{
  "project": "p",
  "queues": { "deploys": { "concurrency": 1 } },
  "templates": {
    "deploy": {
      "queue": "deploys", "kind": "shell",
      "command": "./deploy.sh {{ env }} --tag {{tag}}",
      "env": { "TARGET": "{{env}}", "{{env}}": "keys stay" },
      "priority": 5, "attempts": 2, "backoff": "linear:10s", "timeout": "10m", "tags": ["deploy"],
      "params": { "env": { "default": "staging" }, "tag": { "description": "the image tag" } }
    },
    "hook": { "queue": "deploys", "kind": "http", "url": "https://hooks.test/{{id}}", "body": { "ids": ["{{id}}", 3] }, "params": { "id": {} } }
  }
}`;

test('placeholders are found with their place, spaces inside the braces allowed', () => {
  assert.deepEqual(placeholders('a {{x}} b {{ y_1 }} {{.Names}} {{1x}}'), [
    { name: 'x', start: 2, end: 7 },
    { name: 'y_1', start: 10, end: 19 },
  ]);
});

test('substitution reaches every string of a payload but no key, and leaves unknown names as written', () => {
  assert.deepEqual(substitute({ a: '{{x}}/{{y}}', list: ['{{x}}', 1, null], '{{x}}': true }, { x: 'X' }), { a: 'X/{{y}}', list: ['X', 1, null], '{{x}}': true });
});

test('templateToJob gives the enqueue params, defaults filled in and values substituted', () => {
  const deploy = template(FILE, 'deploy');
  const job = templateToJob(deploy, { tag: 'v1.2' });
  assert.deepEqual(job, {
    ok: true,
    value: {
      queue: 'deploys',
      kind: 'shell',
      payload: { command: './deploy.sh staging --tag v1.2', env: { TARGET: 'staging', '{{env}}': 'keys stay' } },
      priority: 5,
      maxAttempts: 2,
      backoff: { strategy: 'linear', baseMs: 10_000 },
      timeoutMs: 600_000,
      tags: ['deploy'],
    },
  });
  const prod = templateToJob(deploy, { tag: 'v2', env: 'production' });
  assert.ok(prod.ok);
  assert.deepEqual(prod.value.payload, { command: './deploy.sh production --tag v2', env: { TARGET: 'production', '{{env}}': 'keys stay' } });
  // The template itself is left as written.
  assert.deepEqual(deploy.payload, { command: './deploy.sh {{ env }} --tag {{tag}}', env: { TARGET: '{{env}}', '{{env}}': 'keys stay' } });
  const hook = templateToJob(template(FILE, 'hook'), { id: '42' });
  assert.ok(hook.ok);
  assert.deepEqual(hook.value.payload, { url: 'https://hooks.test/42', body: { ids: ['42', 3] } });
});

test('templateToJob refuses a parameter without a value, and one the template does not take', () => {
  const deploy = template(FILE, 'deploy');
  assert.deepEqual(templateToJob(deploy, {}), {
    ok: false,
    message: 'template "deploy" needs a value for "tag": it has no default (give it with --param tag=…)',
  });
  assert.deepEqual(templateToJob(deploy, { tag: 'v1', evn: 'prod' }), {
    ok: false,
    message: 'template "deploy" has no parameter "evn" (its parameters: env, tag). Did you mean "env"?',
  });
});
