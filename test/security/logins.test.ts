/**
 * Failed logins over TLS cost the daemon little and its log less: before login a batch is
 * refused, a connection gets three logins, an address that keeps failing is refused unchecked
 * for a while, and the log counts refusals ("Refused 57 logins with a wrong token from
 * 127.0.0.3 in the last minute") instead of writing one line each.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ErrorCode } from '../../shared/protocol';
import { FAILED_LOGIN_BURST, MAX_LOGIN_ATTEMPTS } from '../../daemon/rpc/loginGuard';
import { rawTls, startTlsDaemon, type TlsDaemon } from '../helpers/tls';
import { waitFor } from '../helpers/wait';

interface Reply {
  id: number | string | null;
  result?: unknown;
  error?: { code: number; message: string };
}

const wrongLogin = (id: number): string => JSON.stringify({ jsonrpc: '2.0', id, method: 'auth.login', params: { token: `spool_wrong-${id}` } }) + '\n';

function count(text: string, pattern: RegExp): number {
  return text.split('\n').filter((line) => pattern.test(line)).length;
}

let d: TlsDaemon;
before(async () => {
  d = await startTlsDaemon();
});
after(() => d.dispose());

test('before login a batch is refused, even of one login; after login batches are answered', async (t) => {
  const raw = await rawTls(d.port);
  t.after(() => raw.socket.destroy());
  raw.socket.write(JSON.stringify([{ jsonrpc: '2.0', id: 1, method: 'auth.login', params: { token: d.tokens.read } }]) + '\n');
  const refused = (await raw.line(0)) as Reply;
  assert.equal(refused.error?.code, ErrorCode.InvalidRequest, JSON.stringify(refused));
  assert.match(refused.error?.message ?? '', /batches are refused before logging in; send auth\.login on its own first/);
  raw.socket.write(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'auth.login', params: { token: d.tokens.read } }) + '\n');
  assert.ok(((await raw.line(1)) as Reply).result);
  raw.socket.write(JSON.stringify([{ jsonrpc: '2.0', id: 3, method: 'daemon.status' }]) + '\n');
  const batch = (await raw.line(2)) as Reply[];
  assert.ok(Array.isArray(batch) && batch[0]?.result, JSON.stringify(batch).slice(0, 200));
});

test(`a connection sending 1,000 wrong logins at once is closed after ${MAX_LOGIN_ATTEMPTS}, and the log gets one line`, async () => {
  const before = count(d.daemon.log(), /Refused a login/);
  const raw = await rawTls(d.port);
  raw.socket.write(Array.from({ length: 1000 }, (_, i) => wrongLogin(i)).join(''));
  await raw.closed;
  const answers = raw.lines.map((l) => JSON.parse(l) as Reply);
  assert.ok(answers.length <= 1000 && answers.length >= MAX_LOGIN_ATTEMPTS, `${answers.length} answers`);
  // Only the first few are checked; the rest are never read (the connection is closed).
  assert.ok(answers.length < 200, `${answers.length} logins were answered before the connection closed`);
  for (const a of answers) assert.equal(a.error?.code, ErrorCode.Unauthorized, JSON.stringify(a));
  assert.ok(answers.some((a) => /made 3 failed logins and is closed|may try 3 logins/.test(a.error?.message ?? '')), JSON.stringify(answers.slice(0, 5)));
  const logged = count(d.daemon.log(), /Refused a login/) - before;
  assert.ok(logged <= 1, `${logged} lines logged for one address's refusals`);
});

test('an address that keeps failing is refused unchecked for a while; another address logs in; the log says how many', async () => {
  const failures = FAILED_LOGIN_BURST + 30;
  const codes: string[] = [];
  // 3 wrong logins per connection, one connection after another, from 127.0.0.3.
  for (let sent = 0; sent < failures; ) {
    const raw = await rawTls(d.port, { localAddress: '127.0.0.3' });
    raw.socket.write([wrongLogin(sent++), wrongLogin(sent++), wrongLogin(sent++)].join(''));
    await raw.closed;
    for (const l of raw.lines) codes.push((JSON.parse(l) as Reply).error?.message ?? l);
  }
  const throttled = codes.filter((m) => m.includes('too many failed logins from 127.0.0.3'));
  assert.ok(throttled.length > 0, `no refusal for the address among ${codes.length}: ${codes.slice(-3).join(' | ')}`);
  assert.ok(codes.filter((m) => m.includes('not known to this daemon')).length <= FAILED_LOGIN_BURST + 1);

  // Even the right token is refused from that address for now ...
  const blocked = await rawTls(d.port, { localAddress: '127.0.0.3' });
  blocked.socket.write(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'auth.login', params: { token: d.tokens.read } }) + '\n');
  assert.match(((await blocked.line(0)) as Reply).error?.message ?? '', /too many failed logins from 127\.0\.0\.3; logins from it are refused for the next \d+ s/);
  await blocked.closed;
  // ... while another address logs in.
  const client = await d.connect(d.tokens.read);
  assert.ok((await client.call('queues.list')).queues);

  const log = d.daemon.log();
  assert.ok(count(log, /Refused a login with a wrong token.*127\.0\.0\.3/) <= 1, 'one line for the wrong tokens');
  assert.ok(count(log, /Refused a login unchecked.*127\.0\.0\.3/) <= 1, 'one line for the refusals unchecked');
  // The counts are logged each minute, and at shutdown.
  await d.daemon.stop();
  const summary = await waitFor('the counts in the log', () => /Refused (\d+) logins with a wrong token from 127\.0\.0\.3 in the last minute/.exec(d.daemon.log()) ?? undefined);
  assert.ok(Number(summary[1]) >= FAILED_LOGIN_BURST - 1, summary[0]);
  assert.match(d.daemon.log(), /Refused \d+ logins from 127\.0\.0\.3 unchecked in the last minute: too many failed logins from that address/);
});
