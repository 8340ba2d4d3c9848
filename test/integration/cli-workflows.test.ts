/**
 * `spool workflows` as a process, on a jobs file in a temporary folder (no daemon: the command
 * reads the file only — the socket given leads nowhere): the list, one workflow's steps in the
 * stages a run can start them in, `--json`, a misspelt name, and a file whose workflow has a cycle.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import type { DeclaredWorkflow } from '../../shared/jobsfile';
import { runCli, type CliResult } from './cli-run';

const RELEASE = `{
  "project": "shop",
  "queues": { "builds": {}, "deploys": {} },
  "templates": {
    "package": { "queue": "builds", "kind": "shell", "command": "make package VERSION={{version}}", "params": { "version": {} } }
  },
  "workflows": {
    "release": {
      "description": "Build, test on each target, package, deploy; clean up whatever happens",
      "params": { "version": { "type": "string" } },
      "steps": {
        "cleanup": { "queue": "builds", "shell": "make clean", "needs": [{ "step": "deploy", "on": "finished" }] },
        "build":   { "queue": "builds", "shell": "make build VERSION={{version}}" },
        "test":    { "queue": "builds", "shell": "make test TARGET={{target}}", "needs": ["build"], "matrix": { "target": ["linux", "mac", "win"] } },
        "package": { "template": "package", "needs": ["test"] },
        "deploy":  { "queue": "deploys", "http": { "url": "https://deploy.example.test/{{version}}" }, "needs": ["package"] }
      }
    }
  }
}
`;

let dir: string;

before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spool-cli-wf-'));
  fs.writeFileSync(path.join(dir, 'spool.jsonc'), RELEASE);
  fs.writeFileSync(path.join(dir, 'cycle.jsonc'), RELEASE.replace('"shell": "make build VERSION={{version}}" }', '"shell": "make build VERSION={{version}}", "needs": ["test"] }'));
});

after(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

const spool = (...args: string[]): Promise<CliResult> => runCli(args, { socketPath: path.join(dir, 'nobody.sock'), cwd: dir });

test('spool workflows lists the declared workflows with their steps, jobs per run and parameters', async () => {
  const result = await spool('workflows');
  assert.equal(result.code, 0, result.stderr);
  const [header, row] = result.stdout.trimEnd().split('\n');
  assert.match(header ?? '', /^WORKFLOW\s+FROM\s+STEPS\s+JOBS\s+PARAMS\s+DESCRIPTION$/);
  assert.match(row ?? '', /^release\s+spool\.jsonc\s+5\s+7\s+version \(required\)\s+Build, test on each target/);
});

test('spool workflows NAME shows the steps in the stages they can start in, whatever the order they are written in', async () => {
  const result = await spool('workflows', 'release');
  assert.equal(result.code, 0, result.stderr);
  const steps = result.stdout
    .split('\n')
    .filter((line) => /^\s+\d\s/.test(line))
    .map((line) => line.trim().split(/\s{2,}/).slice(0, 4));
  assert.deepEqual(steps, [
    ['1', 'build', '1', '-'],
    ['2', 'test', '3 (target)', 'build'],
    ['3', 'package', '1', 'test'],
    ['4', 'deploy', '1', 'package'],
    ['5', 'cleanup', '1', 'deploy (finished)'],
  ]);
  assert.match(result.stdout, /package .*shell on builds \(template package\): make package VERSION=\{\{version\}\}/);
  assert.match(result.stdout, /http on deploys: GET https:\/\/deploy\.example\.test\/\{\{version\}\}/);
});

test('spool workflows NAME --json prints the workflow as declared', async () => {
  const result = await spool('workflows', 'release', '--json');
  assert.equal(result.code, 0, result.stderr);
  const { workflow } = JSON.parse(result.stdout) as { workflow: DeclaredWorkflow };
  assert.equal(workflow.name, 'release');
  assert.deepEqual(workflow.steps.find((s) => s.name === 'test')?.matrix, { target: ['linux', 'mac', 'win'] });
});

test('a misspelt workflow is refused with the closest name; a workflow with a cycle is refused with the cycle named', async () => {
  const wrong = await spool('workflows', 'relaese');
  assert.equal(wrong.code, 1);
  assert.match(wrong.stderr, /declares no workflow "relaese"\. Did you mean "release"\? \(its workflows: release\)/);
  const cycle = await spool('workflows', '--file', 'cycle.jsonc');
  assert.equal(cycle.code, 1);
  assert.match(cycle.stderr, /cycle\.jsonc:\d+:\d+: error: workflows\.release has a cycle: build → test → build\./);
  assert.match(cycle.stderr, /has 1 error \(above\)/);
});
