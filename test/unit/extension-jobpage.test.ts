/**
 * The job page's rendering (extension/views/jobPage): a pure function of the job, its runs and
 * its output, read here as HTML. Hostile text from the daemon is shown as text; the buttons are
 * those the transitions table allows; the output document's last line says how the job ended.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { allows, statesFor } from '../../shared/domain/states';
import { JOB_STATES, type Job, type JobDependency, type JobRun, type JobState, type OutputLine } from '../../shared/protocol/types';
import { MESSAGE, readPageMessage } from '../../extension/views/jobPage/messages';
import { endLine, jobTitle, localTime, pageActions, PAGE_OUTPUT_LINES, relativeTimes, stateReason, type JobPageInput } from '../../extension/views/jobPage/model';
import { escapeHtml, renderJobBody, renderJobDocument } from '../../extension/views/jobPage/render';

const NOW = 1_800_000_000_000;
const HOSTILE = '<script>alert("x")</script><img src=x onerror=alert(1)>';

function job(overrides: Partial<Job> = {}): Job {
  return {
    id: '0193b6f0-0000-7000-8000-00000000abcd',
    queue: 'builds',
    kind: 'shell',
    payload: { command: 'npm test' },
    priority: 0,
    weight: 1,
    state: 'dead',
    runAt: NOW - 60_000,
    attempts: 2,
    maxAttempts: 5,
    backoff: { strategy: 'exponential', baseMs: 1000, capMs: 60_000, jitter: 0 },
    timeoutMs: 60_000,
    leaseExpiresAt: null,
    workerId: null,
    idempotencyKey: null,
    progress: null,
    progressMessage: null,
    checkpoint: null,
    result: null,
    lastError: 'The tests failed.',
    cancelRequested: false,
    tags: [],
    context: null,
    createdAt: NOW - 120_000,
    updatedAt: NOW - 10_000,
    startedAt: NOW - 60_000,
    finishedAt: NOW - 10_000,
    dependsOn: 0,
    waitingFor: 0,
    dependents: 0,
    step: null,
    workflowRunId: null,
    group: null,
    ...overrides,
  };
}

function run(n: number, overrides: Partial<JobRun> = {}): JobRun {
  return {
    jobId: job().id,
    run: n,
    attempt: n,
    workerId: 'builtin:shell',
    startedAt: NOW - 60_000 + n * 1000,
    finishedAt: NOW - 59_000 + n * 1000,
    outcome: 'failed',
    error: 'The tests failed.',
    stack: null,
    exitCode: 3,
    httpStatus: null,
    durationMs: 1000,
    ...overrides,
  };
}

function line(seq: number, text: string, overrides: Partial<OutputLine> = {}): OutputLine {
  return { seq, run: 1, attempt: 1, stream: 'stdout', text, at: NOW, ...overrides };
}

function input(overrides: Partial<JobPageInput> = {}): JobPageInput {
  return { job: job(), runs: [run(1), run(2)], output: { lines: [line(1, 'compiling'), line(2, 'failed', { stream: 'stderr' })], total: 2 }, deleted: false, now: NOW, ...overrides };
}

/** The page's buttons, by their action. */
function buttons(html: string): string[] {
  return [...html.matchAll(/<button [^>]*data-action="([^"]+)"/g)].map((m) => m[1] ?? '');
}

test('a job is titled by its queue and what it runs, not by its id', () => {
  assert.equal(jobTitle(job()), 'builds › npm test');
  assert.equal(jobTitle(job({ queue: 'hooks', kind: 'http', payload: { method: 'post', url: 'https://example.test/hook' } })), 'hooks › POST https://example.test/hook');
  assert.equal(jobTitle(job({ queue: 'reports', kind: 'report', payload: { month: '2026-01' } })), 'reports › report {"month":"2026-01"}');
  assert.equal(jobTitle(job({ queue: 'reports', kind: 'report', payload: null })), 'reports › report');
  const html = renderJobBody(input());
  assert.match(html, /<h1>builds › npm test<\/h1>/);
});

test('the page shows state and reason, queue, kind, command, payload, priority, attempts, times, context and tags', () => {
  const html = renderJobBody(
    input({
      job: job({ priority: 7, tags: ['ci', 'nightly'], context: { branch: 'main', commit: '3f2c9a1b7e4d5c6f', origin: 'vscode' } }),
    }),
  );
  assert.match(html, /data-state="dead"/);
  assert.match(html, /<strong>dead<\/strong> — Died after 2 attempts with exit code 3: The tests failed\./);
  assert.match(html, /<dt>Queue<\/dt><dd>builds<\/dd>/);
  assert.match(html, /<dt>Kind<\/dt><dd>shell<\/dd>/);
  assert.match(html, /<pre class="command">npm test<\/pre>/);
  assert.match(html, /<pre class="payload">\{\n {2}&#34;command&#34;: &#34;npm test&#34;\n\}<\/pre>/);
  assert.match(html, /<dt>Priority<\/dt><dd>7<\/dd>/);
  assert.match(html, /<span data-field="attempts">2\/5<\/span>/);
  assert.ok(html.includes(`<dt>Created</dt><dd><time datetime="${new Date(NOW - 120_000).toISOString()}">${escapeHtml(localTime(NOW - 120_000))}</time> <span class="relative" data-time="created">2m ago</span>`));
  assert.match(html, /data-time="finished">10s ago</);
  assert.match(html, /branch <code>main<\/code>, commit <code>3f2c9a1b7e4d<\/code>/);
  assert.match(html, /<span class="tag">ci<\/span> <span class="tag">nightly<\/span>/);
});

test('a job enqueued with unique, debounce or throttle shows the rule; one without shows no row', () => {
  assert.doesNotMatch(renderJobBody(input()), /data-field="uniqueness"/);
  const unique = renderJobBody(input({ job: job({ uniqueness: { rule: 'unique', forMs: 600_000, by: ['queue', 'kind', 'payload'], while: 'active' } }) }));
  assert.match(unique, /<dt>Unique<\/dt><dd><span data-field="uniqueness">unique for 10m by queue, kind, payload while active<\/span><\/dd>/);
  const debounce = renderJobBody(input({ job: job({ uniqueness: { rule: 'debounce', forMs: 5000, by: ['queue', 'kind'] } }) }));
  assert.match(debounce, /<dt>Debounce<\/dt><dd><span data-field="uniqueness">debounce 5s by queue, kind<\/span>/);
  const throttle = renderJobBody(input({ job: job({ uniqueness: { rule: 'throttle', forMs: 60_000, by: ['payload.repo'] } }) }));
  assert.match(throttle, /<dt>Throttle<\/dt><dd><span data-field="uniqueness">throttle 1m by payload\.repo<\/span>/);
});

test('a running job shows its progress and worker, a retrying one when it tries again', () => {
  const running = renderJobBody(input({ job: job({ state: 'running', workerId: 'builtin:shell', progress: 42.4, progressMessage: 'step 3 of 7', finishedAt: null, lastError: null }), runs: [run(1, { outcome: 'running', finishedAt: null, durationMs: null, exitCode: null, error: null })] }));
  assert.match(running, /Running on builtin:shell, attempt 2 of 5\./);
  assert.match(running, /<progress max="100" value="42"><\/progress> 42% step 3 of 7/);
  const retrying = job({ state: 'retrying', runAt: NOW + 30_000, finishedAt: null });
  assert.match(renderJobBody(input({ job: retrying })), /Attempt 2 failed with exit code 3: The tests failed\. Next attempt in 30s\./);
  assert.deepEqual(relativeTimes(retrying, NOW), { created: '2m ago', started: '1m ago', next: 'in 30s' });
  assert.deepEqual(relativeTimes(retrying, NOW + 20_000), { created: '2m ago', started: '1m ago', next: 'in 10s' }, 'the times move with the clock');
  assert.match(renderJobBody(input({ job: job({ state: 'queued', runAt: NOW + 3_600_000, startedAt: null, finishedAt: null }), runs: [] })), /data-state="delayed".*Starts in 1h\..*No run yet\./s);
});

test('the runs table lists every run with worker, duration, outcome, exit code or HTTP status, and its error with the stack folded', () => {
  const runs = Array.from({ length: 50 }, (_, i) => run(i + 1, i === 49 ? { exitCode: null, httpStatus: 500, stack: 'Error: boom\n    at handler (worker.js:1:1)' } : {}));
  const html = renderJobBody(input({ runs }));
  assert.equal(html.match(/<tr class="outcome-/g)?.length, 50);
  assert.match(html, /<h2>Runs <span class="muted">50<\/span><\/h2>/);
  assert.match(html, /<td>1<\/td><td>1<\/td><td>builtin:shell<\/td><td><time [^>]+>[^<]+<\/time><\/td><td>1s<\/td><td>failed<\/td><td>exit code 3<\/td><td class="error">The tests failed\.<\/td>/);
  assert.match(html, /<td>HTTP 500<\/td><td class="error"><details data-key="stack-50"><summary>The tests failed\.<\/summary><pre>Error: boom\n {4}at handler \(worker\.js:1:1\)<\/pre><\/details><\/td>/);
  const shell = renderJobBody(input({ runs: [run(1, { error: 'The command exited with code 3.\nLast lines of stderr:\nboom' })] }));
  assert.match(shell, /<details data-key="stack-1"><summary>The command exited with code 3\.<\/summary><pre>Last lines of stderr:\nboom<\/pre><\/details>/);
});

test('the output shows the newest lines, stderr marked, a heading where a run begins, and how many lines there are in all', () => {
  const lines = [line(9_801, 'first run'), line(9_802, 'second run', { run: 2, attempt: 2 }), line(9_803, 'oops', { run: 2, attempt: 2, stream: 'stderr' })];
  const html = renderJobBody(input({ output: { lines, total: 10_000 } }));
  assert.match(html, /<pre id="output" class="output">first run\n<span class="muted">--- run 2 \(attempt 2\) ---<\/span>\nsecond run\n<span class="stderr">oops<\/span><\/pre>/);
  assert.match(html, /The last 3 of 10000 lines\./);
  assert.match(html, /<a href="#" data-action="showOutput">Show live output<\/a>/);
  assert.match(renderJobBody(input({ output: { lines: [], total: 0 } })), /No output\./);
  assert.ok(PAGE_OUTPUT_LINES >= 100, 'the page shows a useful tail');
});

test('hostile text in a command, payload, output, error, stack, tag or context is shown as text, never as markup', () => {
  const hostile = input({
    job: job({ payload: { command: HOSTILE, env: { X: HOSTILE } }, lastError: HOSTILE, tags: [HOSTILE], context: { branch: HOSTILE, origin: HOSTILE } }),
    runs: [run(1, { error: HOSTILE, stack: HOSTILE, workerId: HOSTILE })],
    output: { lines: [line(1, HOSTILE), line(2, HOSTILE, { stream: 'stderr' })], total: 2 },
  });
  const html = renderJobDocument(hostile, 'abc123');
  // One script in the document: the page's own, with its nonce.
  assert.equal(html.match(/<script/g)?.length, 1);
  assert.match(html, /<script nonce="abc123">/);
  assert.ok(!html.includes('<img'), 'no image tag gets through');
  assert.ok(!/<[^>]* onerror=/i.test(html), 'no event handler attribute gets through');
  assert.ok(html.includes('<pre class="command">&#60;script&#62;alert(&#34;x&#34;)&#60;/script&#62;&#60;img src=x onerror=alert(1)&#62;</pre>'), 'the command reads as it was typed');
  assert.ok(jobTitle(hostile.job).startsWith('builds › <script>'));
  assert.ok(html.includes(`<title>${escapeHtml(jobTitle(hostile.job))}</title>`), 'the title is text too');
  assert.ok(html.includes(`<h1>${escapeHtml(jobTitle(hostile.job))}</h1>`));
});

test('the document allows nothing from outside: no network, style and script only with its nonce', () => {
  const html = renderJobDocument(input(), 'n0nce');
  const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html)?.[1];
  assert.equal(csp, "default-src 'none'; style-src 'nonce-n0nce'; script-src 'nonce-n0nce'; img-src data:;");
  assert.match(html, /<style nonce="n0nce">/);
  assert.ok(!/\b(src|href)="(https?:)?\/\//.test(html), 'nothing is loaded from a URL');
  assert.ok(!/ style="/.test(html), 'no inline style attribute (the policy would block it)');
  assert.match(html, /var\(--vscode-editor-background\)/);
});

test('the buttons are the actions the transitions table allows in the job\'s state', () => {
  for (const state of JOB_STATES) {
    const shown = buttons(renderJobBody(input({ job: job({ state }) })));
    assert.equal(shown.includes('retry'), statesFor('retry').includes(state), `Retry in ${state}`);
    assert.equal(shown.includes('cancel'), allows('cancel', state), `Cancel in ${state}`);
    assert.equal(shown.includes('delete'), allows('delete', state), `Delete in ${state}`);
    assert.equal(shown.includes('edit'), allows('update', state), `Edit in ${state}`);
    assert.equal(shown.includes('runNow'), allows('runNow', state), `Run now in ${state}`);
    assert.equal(shown.includes('hold'), allows('hold', state), `Hold in ${state}`);
    assert.equal(shown.includes('release'), allows('unhold', state), `Release in ${state}`);
    assert.equal(shown.includes('pause'), state === 'running', `Pause in ${state} (a shell job, not paused)`);
    assert.equal(shown.includes('resume'), false, `Resume in ${state} (not paused)`);
    for (const always of ['editAndRequeue', 'copyId', 'openJson']) assert.ok(shown.includes(always), `${always} in ${state}`);
  }
  // The table's answers today, said plainly.
  const expected: Partial<Record<JobState, string[]>> = {
    dead: ['retry', 'editAndRequeue', 'delete', 'copyId', 'openJson'],
    running: ['cancel', 'pause', 'editAndRequeue', 'copyId', 'openJson'],
    queued: ['cancel', 'edit', 'runNow', 'hold', 'editAndRequeue', 'delete', 'copyId', 'openJson'],
    held: ['cancel', 'edit', 'release', 'editAndRequeue', 'delete', 'copyId', 'openJson'],
  };
  for (const [state, actions] of Object.entries(expected)) assert.deepEqual(buttons(renderJobBody(input({ job: job({ state: state as JobState }) }))), actions);
  // A paused job offers Resume instead of Pause, and says it is paused; a worker's job offers neither.
  const paused = renderJobBody(input({ job: job({ state: 'running', startedAt: NOW - 5000, pausedAt: NOW - 2000 }) }));
  assert.deepEqual(buttons(paused), ['cancel', 'resume', 'editAndRequeue', 'copyId', 'openJson']);
  assert.match(paused, /data-state="paused"/);
  assert.match(paused, /Paused 2s ago/);
  assert.deepEqual(buttons(renderJobBody(input({ job: job({ state: 'running', kind: 'resize', payload: {} }) }))), ['cancel', 'editAndRequeue', 'copyId', 'openJson']);
});

test('a deleted job keeps its content under a banner and offers only Copy Id', () => {
  const html = renderJobBody(input({ deleted: true }));
  assert.match(html, /^<p class="banner" role="status">This job was deleted\./);
  assert.deepEqual(buttons(html), ['copyId']);
  assert.deepEqual(pageActions(job(), true), ['copyId']);
  assert.ok(!html.includes('data-action="showOutput"'));
  assert.match(html, /<h1>builds › npm test<\/h1>/);
});

test('the output document ends with how the job ended', () => {
  assert.equal(endLine(job({ state: 'completed', lastError: null }), [run(1, { outcome: 'completed', exitCode: 0, error: null })]), 'the job completed');
  assert.equal(endLine(job({ state: 'cancelled', lastError: null }), [run(1, { outcome: 'cancelled', exitCode: null, error: null })]), 'the job was cancelled');
  assert.equal(endLine(job(), [run(1)]), 'the job died with exit code 3: The tests failed.');
  assert.equal(endLine(job({ kind: 'http' }), [run(1, { exitCode: null, httpStatus: 500 })]), 'the job died with HTTP 500: The tests failed.');
  // The shell executor's error names the code already, and carries stderr on further lines.
  assert.equal(endLine(job({ lastError: 'The command exited with code 3.\nLast lines of stderr:\nboom' }), [run(1)]), 'the job died: The command exited with code 3.');
  assert.equal(endLine(job({ state: 'running' }), [run(1)]), null);
  assert.equal(stateReason(job({ attempts: 1 }), [], NOW), 'Died after 1 attempt: The tests failed.');
});

test('the jobs it depends on and those depending on it are links with their states and conditions, and the results passed in', () => {
  const dep = (n: number, fields: Partial<JobDependency>): JobDependency => ({ id: `0193b6f0-0000-7000-8000-00000000000${n}`, on: 'succeeded', state: 'completed', step: null, queue: 'builds', kind: 'shell', result: null, ...fields });
  const long = { artifact: 'app-1.2.tgz', files: Array.from({ length: 20 }, (_, i) => `file-${i}.js`) };
  const html = renderJobBody(
    input({
      job: job({ state: 'blocked', dependsOn: 3, waitingFor: 1, dependents: 1502, step: 'package', workflowRunId: '0193b6f0-0000-7000-8000-0000000000ff', finishedAt: null, lastError: null }),
      dependencies: [dep(1, { step: 'build', result: { version: '1.2' } }), dep(2, { step: 'test', state: 'running' }), dep(3, { on: 'finished', state: 'dead', result: long })],
      dependents: [dep(4, { step: 'deploy', state: 'blocked', queue: 'deploys', kind: 'http' })],
    }),
  );
  assert.match(html, /<dt>Step<\/dt><dd>package<\/dd>/);
  assert.match(html, /<h2>Depends on <span class="muted">3<\/span><\/h2>/);
  assert.match(html, /<tr><td><a href="#" data-job="0193b6f0-0000-7000-8000-000000000001">build<\/a> <span class="muted">builds · shell<\/span><\/td><td><span class="state-completed">.*? completed<\/span><\/td><td>succeeded<\/td><td><code>\{&#34;version&#34;:&#34;1\.2&#34;\}<\/code><\/td><\/tr>/);
  assert.match(html, /data-job="0193b6f0-0000-7000-8000-000000000002">test<\/a>.*? running<\/span><\/td><td>succeeded<\/td><td><span class="muted">none<\/span>/);
  // A job without a step is named by the end of its id; a long result is cut and unfolds formatted.
  assert.match(html, /data-job="0193b6f0-0000-7000-8000-000000000003">00000003<\/a>.*?<td>finished<\/td><td><details data-key="result-0193b6f0-0000-7000-8000-000000000003"><summary><code>\{&#34;artifact[^<]*…<\/code><\/summary><pre class="payload">\{\n {2}&#34;artifact&#34;/s);
  assert.match(html, /<h2>Depended on by <span class="muted">1502<\/span><\/h2>.*data-job="0193b6f0-0000-7000-8000-000000000004">deploy<\/a> <span class="muted">deploys · http<\/span>.*?<\/table><p class="muted">… and 1501 more\.<\/p>/s);
  assert.ok(!/Depended on by.*Result passed in/s.test(html), 'a dependent passes no result in');
  assert.ok(!renderJobBody(input()).includes('Depends on'), 'a job without dependencies has no such section');
});

test('only well-formed action messages from the page are taken', () => {
  assert.deepEqual(readPageMessage({ type: MESSAGE.openJob, id: '0193b6f0-0000-7000-8000-000000000001' }), { type: 'openJob', id: '0193b6f0-0000-7000-8000-000000000001' });
  assert.equal(readPageMessage({ type: MESSAGE.openJob, id: '../../etc' }), null, 'a job to open is a whole id');
  assert.equal(readPageMessage({ type: MESSAGE.openJob }), null);
  assert.deepEqual(readPageMessage({ type: MESSAGE.action, action: 'retry' }), { type: 'action', action: 'retry' });
  assert.equal(readPageMessage({ type: MESSAGE.action, action: 'toString' }), null);
  assert.equal(readPageMessage({ type: MESSAGE.action, action: 'rm -rf' }), null);
  assert.equal(readPageMessage({ type: 'render', html: '' }), null);
  assert.equal(readPageMessage('retry'), null);
  assert.equal(readPageMessage(null), null);
});
