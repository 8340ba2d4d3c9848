import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ErrorCode } from '../../../shared/protocol';
import { makeEngine, thrown, type TestStoreFactory } from '../harness';

const SCHEDULE = { name: 'nightly', cron: '0 3 * * *', queue: 'q' };

/** The payloads tests, run against the store `store` makes. */
export function definePayloads(store: TestStoreFactory): void {
  test('a shell or http job whose payload cannot run is refused at enqueue, naming the field and what is allowed', async (t) => {
    const { engine } = makeEngine(t, store);
    const cases: [unknown, string, RegExp, RegExp][] = [
      [{ queue: 'q', kind: 'shell', payload: {} }, 'payload.command', /payload\.command must be a non-empty string/, /non-empty string/],
      [{ queue: 'q', kind: 'shell' }, 'payload.command', /got nothing/, /non-empty string/],
      [{ queue: 'q', kind: 'shell', payload: '  ' }, 'payload', /command string, or \{command/, /command string/],
      [{ queue: 'q', kind: 'shell', payload: { cmd: 'ls' } }, 'payload.cmd', /Unknown field "payload\.cmd"/, /^command, cwd, env, permanentExitCodes, limits$/],
      [{ queue: 'q', kind: 'shell', payload: { command: 'ls', limits: { memoryBytes: 1024 } } }, 'payload.limits.memoryBytes', /must be an integer bytes, from 16 MiB/, /from 16 MiB/],
      [{ queue: 'q', kind: 'shell', payload: { command: 'ls', limits: { cpuSeconds: 0.5 } } }, 'payload.limits.cpuSeconds', /got 0\.5/, /whole seconds/],
      [{ queue: 'q', kind: 'shell', payload: { command: 'ls', limits: { files: 3 } } }, 'payload.limits.files', /Unknown field "payload\.limits\.files"/, /^memoryBytes, cpuSeconds, openFiles, processes$/],
      [{ queue: 'q', kind: 'shell', payload: { command: 'ls', cwd: 'relative' } }, 'payload.cwd', /absolute path/, /absolute path/],
      [{ queue: 'q', kind: 'shell', payload: { command: 'ls', env: { A: 1 } } }, 'payload.env.A', /must be a string/, /string/],
      [{ queue: 'q', kind: 'shell', payload: { command: 'ls', permanentExitCodes: [2, 'x'] } }, 'payload.permanentExitCodes[1]', /integer/, /integer/],
      [{ queue: 'q', kind: 'http', payload: {} }, 'payload.url', /absolute http:\/\/ or https:\/\/ URL/, /http/],
      [{ queue: 'q', kind: 'http', payload: 'not a url' }, 'payload.url', /got "not a url"/, /http/],
      [{ queue: 'q', kind: 'http', payload: { url: 'ftp://example.com/' } }, 'payload.url', /must use http or https/, /http/],
      [{ queue: 'q', kind: 'http', payload: { url: 'http://x/', method: 'FETCH' } }, 'payload.method', /one of GET, HEAD/, /^GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS$/],
      [{ queue: 'q', kind: 'http', payload: { url: 'http://x/', headers: { accept: 1 } } }, 'payload.headers.accept', /must be a string/, /string/],
      // What the operating system or fetch would refuse when the job runs.
      [{ queue: 'q', kind: 'shell', payload: 'echo a\u0000b' }, 'payload', /NUL/, /without NUL/],
      [{ queue: 'q', kind: 'shell', payload: { command: 'echo a\u0000b' } }, 'payload.command', /NUL/, /without NUL/],
      [{ queue: 'q', kind: 'shell', payload: { command: 'ls', cwd: '/tmp\u0000x' } }, 'payload.cwd', /NUL/, /absolute path without NUL/],
      [{ queue: 'q', kind: 'shell', payload: { command: 'ls', env: { A: 'x\u0000y' } } }, 'payload.env.A', /NUL/, /without NUL/],
      [{ queue: 'q', kind: 'shell', payload: { command: 'ls', env: { 'A=B': 'x' } } }, 'payload.env.A=B', /invalid variable name "A=B"/, /without "="/],
      [{ queue: 'q', kind: 'shell', payload: { command: 'ls', env: { '': 'x' } } }, 'payload.env.', /invalid variable name ""/, /without "="/],
      [{ queue: 'q', kind: 'http', payload: { url: 'http://x/', headers: { 'X-A': 'a\r\nb' } } }, 'payload.headers.X-A', /line break/, /one line/],
      [{ queue: 'q', kind: 'http', payload: { url: 'http://x/', headers: { 'X-A': 'price in €' } } }, 'payload.headers.X-A', /above U\+00FF/, /Latin-1/],
      [{ queue: 'q', kind: 'http', payload: { url: 'http://x/', headers: { 'bad name': 'x' } } }, 'payload.headers.bad name', /invalid header name "bad name"/, /header names/],
    ];
    for (const [params, field, message, allowed] of cases) {
      const error = await thrown(() => engine.enqueue(params as never));
      assert.equal(error.code, ErrorCode.InvalidParams, `code for ${JSON.stringify(params)}: ${error.message}`);
      assert.equal(error.data['field'], field, `field for ${JSON.stringify(params)}: ${error.message}`);
      assert.match(error.message, message);
      assert.match(String(error.data['allowed']), allowed, `allowed for ${JSON.stringify(params)}`);
    }
    const batch = await thrown(() => engine.enqueueBatch({ jobs: [{ queue: 'q', kind: 'shell', payload: 'true' }, { queue: 'q', kind: 'shell', payload: { command: '' } }] }));
    assert.equal(batch.data['field'], 'jobs[1].payload.command');
    assert.deepEqual(await engine.listQueues(), [], 'nothing reached the database');
  });

  test('payloads a built-in executor can run are accepted, and other kinds take any JSON', async (t) => {
    const { engine } = makeEngine(t, store);
    for (const params of [
      { queue: 'q', kind: 'shell', payload: 'echo hi' },
      { queue: 'q', kind: 'shell', payload: { command: 'ls', cwd: '/tmp', env: { A: 'b' }, permanentExitCodes: [2] } },
      { queue: 'q', kind: 'http', payload: 'https://example.com/' },
      { queue: 'q', kind: 'http', payload: { url: 'http://127.0.0.1:8080/x', method: 'post', headers: { a: 'b' }, body: { n: 1 } } },
      { queue: 'q', kind: 'render', payload: {} },
      { queue: 'q', kind: 'render' },
    ]) {
      assert.equal((await engine.enqueue(params)).created, true, JSON.stringify(params));
    }
  });

  test('jobs.update checks a new payload against the stored job kind before writing anything', async (t) => {
    const { engine } = makeEngine(t, store);
    const shell = (await engine.enqueue({ queue: 'q', kind: 'shell', payload: { command: 'true' } })).job;
    const http = (await engine.enqueue({ queue: 'q', kind: 'http', payload: { url: 'http://x/' } })).job;
    const other = (await engine.enqueue({ queue: 'q', kind: 'render', payload: { size: 1 } })).job;
    const before = await engine.getJob(shell.id);
    const error = await thrown(() => engine.update({ id: shell.id, payload: {}, priority: 5 }));
    assert.equal(error.code, ErrorCode.InvalidParams);
    assert.equal(error.data['field'], 'payload.command');
    assert.deepEqual(await engine.getJob(shell.id), before, 'nothing changed');
    assert.equal((await thrown(() => engine.update({ id: http.id, payload: { url: 'mailto:a@b' } }))).data['field'], 'payload.url');
    assert.deepEqual((await engine.update({ id: shell.id, payload: 'echo again' })).payload, 'echo again');
    assert.deepEqual((await engine.update({ id: other.id, payload: {} })).payload, {});
  });

  test('a schedule whose job template has a payload its kind cannot run is refused on create and update', async (t) => {
    const { engine } = makeEngine(t, store);
    const create = await thrown(() => engine.createSchedule({ ...SCHEDULE, job: { kind: 'shell', payload: { command: ' ' } } }, null));
    assert.equal(create.code, ErrorCode.InvalidParams);
    assert.equal(create.data['field'], 'job.payload.command');
    assert.equal((await thrown(() => engine.createSchedule({ ...SCHEDULE, job: { kind: 'http' } }, null))).data['field'], 'job.payload.url');
    assert.deepEqual(await engine.listSchedules(), []);

    await engine.createSchedule({ ...SCHEDULE, job: { kind: 'shell', payload: { command: 'make clean' } } }, null);
    const update = await thrown(() => engine.updateSchedule({ name: 'nightly', job: { kind: 'http', payload: { url: '/relative' } } }, undefined));
    assert.equal(update.data['field'], 'job.payload.url');
    assert.deepEqual((await engine.getSchedule('nightly')).job, { kind: 'shell', payload: { command: 'make clean' } });
  });

  test('a huge unknown field name comes back clipped, in the message and in data.field', async (t) => {
    const { engine } = makeEngine(t, store);
    const key = 'k'.repeat(1_000_000);
    const error = await thrown(() => engine.enqueue({ queue: 'q', kind: 'k', [key]: 1 } as never));
    assert.equal(error.code, ErrorCode.InvalidParams);
    assert.equal(error.data['field'], `${'k'.repeat(128)}…`);
    assert.ok(error.message.length < 400, `the message is ${error.message.length} characters`);
    const env = await thrown(() => engine.enqueue({ queue: 'q', kind: 'shell', payload: { command: 'ls', env: { [key]: 1 } } }));
    assert.equal(String(error.data['field']).length, 129);
    assert.ok(env.message.length < 400 && String(env.data['field']).length === 129, env.message.slice(0, 200));
  });
}
