/**
 * Workflows in code-server, driven as a user drives them: the workspace's spool.jsonc declares
 * the `release` workflow (build, test on three targets, package, deploy, clean up whatever
 * happens) and is not applied. The user runs it from the Workflows view, giving its version; the
 * run's graph opens, the Queues view lists the blocked jobs with what they wait for, and the
 * graph fills in as a real daemon runs the steps; the Windows test fails, so the
 * run fails with package and deploy cancelled and cleanup run; the failed step's node opens its
 * job page; Retry Failed Part runs the failed part again (the test passes the second time: it
 * left a marker file) and the run ends succeeded. Screenshots go to .test-artifacts/
 * (workflow-run.png is the one docs/vscode.md shows).
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before } from 'node:test';
import type { Frame, Locator, Page } from 'playwright-core';
import { startDaemon, type TestDaemon } from '../helpers/daemon';
import { openVsCode, waitFor, type VsCode } from './harness';
import { jobPageFrame, pageState } from './support/jobPage';
import { answer, collapse, collapseView, contextMenu, expand, openSpoolView, openWorkbench, queuesPane, rowAt, screenshot, uiTestOn, widenSideBar } from './support/workbench';

const uiTest = uiTestOn(() => page, 'workflows-');

let daemon: TestDaemon;
let vscode: VsCode;
let page: Page;
let graph: Frame;
/** The build step waits for this file: the graph is seen with the build running first. */
let go: string;
/** The Windows test fails while this file does not exist, and creates it: it passes the second time. */
let marker: string;

function jobsFile(): string {
  const test = `if [ "{{target}}" = win ] && [ ! -f ${marker} ]; then touch ${marker}; false; else true; fi`;
  return JSON.stringify(
    {
      project: 'e2e-workflows',
      workflows: {
        release: {
          description: 'Build, test on each target, package, deploy; clean up whatever happens',
          params: { version: { type: 'string', default: '0.0' } },
          steps: {
            build: { queue: 'builds', shell: `until [ -f ${go} ]; do sleep 0.1; done; echo build {{version}}`, attempts: 1 },
            test: { queue: 'builds', shell: test, needs: ['build'], matrix: { target: ['linux', 'mac', 'win'] }, attempts: 1 },
            package: { queue: 'builds', shell: 'true', needs: ['test'], attempts: 1 },
            deploy: { queue: 'deploys', shell: 'true', needs: ['package'], attempts: 1 },
            cleanup: { queue: 'builds', shell: 'true', needs: [{ step: 'deploy', on: 'finished' }], attempts: 1 },
          },
        },
      },
    },
    null,
    2,
  );
}

/** The Workflows view. */
function workflowsPane(): Locator {
  return page.locator('.pane', { has: page.locator('.pane-header', { hasText: 'Workflows' }) }).first();
}

/** The graph page of the run: the frame whose `main#root` holds the run's graph. */
async function graphFrame(): Promise<Frame> {
  return waitFor(
    'the graph page of a release run',
    async () => {
      for (const frame of page.frames()) {
        if (frame.isDetached()) continue;
        try {
          const svg = frame.locator('main#root svg.graph');
          if ((await svg.count()) === 0) continue;
          if (/^release #[0-9a-f]{8}$/.test(((await frame.locator('main#root h1').first().textContent()) ?? '').trim())) return frame;
        } catch {
          // A frame that navigated or went away meanwhile.
        }
      }
      return null;
    },
    { timeoutMs: 60_000 },
  );
}

/** Each node's label and state, as the graph draws them. */
async function nodeStates(): Promise<Record<string, string>> {
  const pairs = await graph.locator('main#root g.node').evaluateAll((nodes) => nodes.map((n) => [n.getAttribute('data-label') ?? '', n.getAttribute('data-state') ?? '']));
  return Object.fromEntries(pairs);
}

async function runState(): Promise<string> {
  return (await graph.locator('main#root .run-state').first().getAttribute('data-state')) ?? '';
}

async function statesBecome(what: string, expected: Record<string, string>, timeoutMs = 60_000): Promise<void> {
  let last: Record<string, string> = {};
  await waitFor(
    what,
    async () => {
      last = await nodeStates();
      return Object.entries(expected).every(([label, state]) => last[label] === state);
    },
    { timeoutMs, intervalMs: 250 },
  ).catch((error: unknown) => {
    throw new Error(`${error instanceof Error ? error.message : String(error)}; the graph shows ${JSON.stringify(last)}`);
  });
}

before(async () => {
  daemon = await startDaemon();
  vscode = await openVsCode({ settings: { 'spool.socketPath': daemon.socketPath, 'spool.autoStartDaemon': false } });
  go = path.join(vscode.server.workspace, '.go');
  marker = path.join(vscode.server.workspace, '.win-failed-once');
  fs.writeFileSync(path.join(vscode.server.workspace, 'spool.jsonc'), jobsFile());
  page = await openWorkbench(vscode);
  await openSpoolView(page);
  await widenSideBar(page, 200);
  await collapseView(page, 'Schedules');
  await collapseView(page, 'Workers');
});

after(async () => {
  await vscode?.close();
  await daemon?.dispose();
});

uiTest("the Workflows view lists the file's workflow, and Run asks its version and opens the run's graph", async () => {
  // The view starts collapsed, leaving the Queues view its height: open it as a user would.
  const header = workflowsPane().locator('.pane-header');
  await header.waitFor({ timeout: 60_000 });
  if ((await header.getAttribute('aria-expanded')) !== 'true') await header.click();
  const release = workflowsPane().locator('.monaco-list-row', { hasText: 'release' }).first();
  await release.waitFor({ timeout: 60_000 });
  assert.match((await release.getAttribute('aria-label')) ?? '', /spool\.jsonc, not applied/);
  await contextMenu(page, release, 'Run Workflow…');
  await answer(page, '1.2', { expect: 'version (string)' });
  graph = await graphFrame();
  // Nothing has ended yet: the build waits for its go, everything after it is blocked.
  await statesBecome('the build to run and the rest to wait', { build: 'running', 'test (linux)': 'blocked', 'test (mac)': 'blocked', 'test (win)': 'blocked', package: 'blocked', deploy: 'blocked', cleanup: 'blocked' });
  assert.equal(await runState(), 'running');
  assert.equal(await graph.locator('main#root g.cluster[data-step="test"] text').textContent(), 'test');
  assert.equal(await graph.locator('main#root path.edge.on-finished').count(), 1, 'cleanup waits for deploy whatever its outcome');
  assert.equal(await graph.locator('main#root button[data-action="cancel"]:not([disabled])').count(), 1, 'Cancel Run applies while it runs');
  assert.equal(await graph.locator('main#root button[data-action="retry"][disabled]').count(), 1, 'Retry Failed Part does not');
  await screenshot(page, 'workflow-run-running.png');
});

uiTest('the Queues view lists the blocked jobs under their queue, each saying what it waits for', async () => {
  const builds = rowAt(page, 1, 'builds');
  await builds.waitFor({ timeout: 30_000 });
  await expand(builds);
  const blocked = rowAt(page, 2, 'Blocked');
  await blocked.waitFor({ timeout: 30_000 });
  await expand(blocked);
  const labels = async (): Promise<string[]> => queuesPane(page).locator('.monaco-list-row[aria-level="3"]').evaluateAll((rows) => rows.map((r) => r.getAttribute('aria-label') ?? ''));
  await waitFor('the blocked jobs to say what they wait for', async () => {
    const rows = await labels();
    return rows.filter((l) => l.includes('blocked, waiting for build (running)')).length === 3 && rows.some((l) => l.includes('blocked, waiting for 3 jobs: test ×3 (blocked)'));
  }, { timeoutMs: 30_000 });
  await screenshot(page, 'workflow-blocked-jobs.png');
  await collapse(builds);
});

uiTest('the graph fills in as the steps end: the Windows test dies, package and deploy are cancelled, cleanup runs', async () => {
  fs.writeFileSync(go, '');
  await statesBecome('the run to end', { build: 'completed', 'test (linux)': 'completed', 'test (mac)': 'completed', 'test (win)': 'dead', package: 'cancelled', deploy: 'cancelled', cleanup: 'completed' });
  await waitFor('the run to fail', async () => (await runState()) === 'failed', { timeoutMs: 30_000 });
  assert.equal(await graph.locator('main#root button[data-action="retry"]:not([disabled])').count(), 1, 'Retry Failed Part applies to a failed run');
  assert.equal(await graph.locator('main#root button[data-action="cancel"][disabled]').count(), 1);
  await screenshot(page, 'workflow-run.png');
});

uiTest("the failed step's node opens its job page", async () => {
  await graph.locator('main#root g.node[data-label="test (win)"]').click();
  const job = await jobPageFrame(page, /^builds › if \[ "win" = win \]/, { timeoutMs: 30_000 });
  assert.equal(await pageState(job), 'dead');
  assert.match(await job.locator('main#root').innerText(), /Step\s+test/);
});

uiTest('Retry Failed Part runs the failed part again, and the run ends succeeded', async () => {
  const tab = page.locator('.tabs-container .tab', { hasText: /^Workflow run: release #/ }).first();
  await tab.click();
  graph = await graphFrame();
  await graph.locator('main#root button[data-action="retry"]').click();
  await statesBecome('the failed part to succeed', { build: 'completed', 'test (linux)': 'completed', 'test (mac)': 'completed', 'test (win)': 'completed', package: 'completed', deploy: 'completed', cleanup: 'completed' }, 90_000);
  await waitFor('the run to succeed', async () => (await runState()) === 'succeeded', { timeoutMs: 30_000 });
  // The run's row in the Workflows view, under its workflow, says so too.
  const release = workflowsPane().locator('.monaco-list-row[aria-level="1"]', { hasText: 'release' }).first();
  await expand(release);
  const run = workflowsPane().locator('.monaco-list-row[aria-level="2"]').first();
  await waitFor('the Workflows view to show the run succeeded', async () => ((await run.getAttribute('aria-label')) ?? '').includes('succeeded · 7 completed'), { timeoutMs: 30_000 });
  await screenshot(page, 'workflow-run-retried.png');
});
