/**
 * The Python client module (packages/python/spool_client.py) as a Python program uses it, against
 * a real daemon: calls with named fields, the daemon's refusal as RpcError naming the field, no
 * daemon as NoDaemon, and incomplete TLS settings as ConfigError before anything is sent.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startDaemon, type TestDaemon } from '../helpers/daemon';
import { ROOT } from './cli-run';

const MODULE_DIR = path.join(ROOT, 'packages', 'python');

function python(script: string, env: NodeJS.ProcessEnv): { code: number | null; out: unknown; stderr: string } {
  const r = spawnSync('python3', ['-c', script], { env: { ...process.env, PYTHONPATH: MODULE_DIR, ...env }, encoding: 'utf8', timeout: 30_000 });
  return { code: r.status, out: r.stdout.trim() === '' ? null : JSON.parse(r.stdout), stderr: r.stderr };
}

describe('the Python client module', () => {
  let daemon: TestDaemon;
  before(async () => {
    daemon = await startDaemon();
  });
  after(async () => {
    await daemon?.dispose();
  });

  test('enqueues, claims, completes and reads a job; a refusal names its field', (t) => {
    if (spawnSync('python3', ['--version']).status !== 0) return t.skip('python3 is not installed');
    const r = python(
      `
import json
from spool_client import Client, RpcError
with Client.connect() as spool:
    job = spool.enqueue("py", "upper", {"text": "hi"}, priority=3)
    worker = spool.register_worker("py-test", kinds=["upper"], queues=["py"])
    claimed = spool.claim(worker, kinds=["upper"], queues=["py"], wait_ms=1000)
    spool.log(job["id"], worker, ["working"])
    spool.complete(job["id"], worker, {"text": "HI"})
    got = spool.get_job(job["id"])
    listed = spool.list_jobs(queue="py", states=["completed"])
    try:
        spool.enqueue("py", "upper", None, priority="high")
        refused = None
    except RpcError as e:
        refused = {"code": e.code, "field": e.data.get("field"), "message": str(e)}
    print(json.dumps({"claimed": [j["id"] for j in claimed], "job": got["job"], "runs": len(got["runs"]), "listed": [j["id"] for j in listed], "refused": refused, "id": job["id"]}))
`,
      { SPOOL_SOCKET: daemon.socketPath },
    );
    assert.equal(r.code, 0, r.stderr);
    const out = r.out as { id: string; claimed: string[]; job: { state: string; priority: number; result: unknown }; runs: number; listed: string[]; refused: { code: number; field: string; message: string } };
    assert.deepEqual(out.claimed, [out.id]);
    assert.equal(out.job.state, 'completed');
    assert.equal(out.job.priority, 3);
    assert.deepEqual(out.job.result, { text: 'HI' });
    assert.equal(out.runs, 1);
    assert.deepEqual(out.listed, [out.id]);
    assert.equal(out.refused.code, -32602);
    assert.equal(out.refused.field, 'priority');
    assert.match(out.refused.message, /priority/);
  });

  test('no daemon is NoDaemon saying how to start one; an endpoint without a token is ConfigError', (t) => {
    if (spawnSync('python3', ['--version']).status !== 0) return t.skip('python3 is not installed');
    const r = python(
      `
import json
from spool_client import Client, ConfigError, NoDaemon
out = {}
try:
    Client.connect("/nonexistent/spool.sock")
except NoDaemon as e:
    out["none"] = str(e)
import os
os.environ["SPOOL_ENDPOINT"] = "tls://127.0.0.1:1"
try:
    Client.connect()
except ConfigError as e:
    out["config"] = str(e)
print(json.dumps(out))
`,
      { SPOOL_SOCKET: '', SPOOL_ENDPOINT: '', SPOOL_TOKEN: '', SPOOL_TOKEN_FILE: '' },
    );
    assert.equal(r.code, 0, r.stderr);
    const out = r.out as { none: string; config: string };
    assert.match(out.none, /No Spool daemon at \/nonexistent\/spool\.sock\. Start one with `spool daemon --detach`/);
    assert.match(out.config, /tls:\/\/127\.0\.0\.1:1 needs a token/);
  });
});
