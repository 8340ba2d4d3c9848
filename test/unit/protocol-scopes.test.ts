/**
 * Every method declares who may call it over TCP, once, in the protocol's table; the daemon's
 * access check (daemon/rpc/auth.ts) follows that declaration for every token scope.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ErrorCode, METHOD_NAMES, METHODS, TOKEN_SCOPES, type MethodScope } from '../../shared/protocol';
import { refusal, type ConnectionAuth } from '../../daemon/rpc/auth';

const SCOPES: readonly MethodScope[] = ['public', 'read', 'worker', 'admin', 'local'];

test('every method of the table declares one scope of the known ones', () => {
  for (const name of METHOD_NAMES) {
    assert.ok(SCOPES.includes(METHODS[name].scope), `${name} has scope ${String(METHODS[name].scope)}`);
  }
  assert.deepEqual(METHOD_NAMES.filter((n) => METHODS[n].scope === 'public'), ['auth.login'], 'only the login may be called before logging in');
  assert.deepEqual(METHOD_NAMES.filter((n) => METHODS[n].scope === 'local').sort(), ['daemon.backup', 'tokens.create', 'tokens.list', 'tokens.revoke']);
});

test('a token scope allows exactly the methods of its own scope and the weaker ones', () => {
  const rank: Record<MethodScope, number> = { public: 0, read: 1, worker: 2, admin: 3, local: 99 };
  for (const scope of TOKEN_SCOPES) {
    const auth: ConnectionAuth = { transport: 'tls', remote: '127.0.0.1:1', source: '127.0.0.1', attempts: 0, login: { name: 't', scope, hash: '' } };
    for (const name of METHOD_NAMES) {
      const refused = refusal(name, auth);
      const allowed = rank[METHODS[name].scope] <= rank[scope];
      assert.equal(refused === null, allowed, `${scope} calling ${name}`);
      if (refused) assert.equal(refused.code, ErrorCode.Forbidden);
    }
  }
});

test('before logging in only auth.login is allowed; over the Unix socket everything is', () => {
  const anonymous: ConnectionAuth = { transport: 'tls', remote: '127.0.0.1:1', source: '127.0.0.1', attempts: 0, login: null };
  for (const name of METHOD_NAMES) {
    const refused = refusal(name, anonymous);
    const expected = name === 'auth.login' ? null : METHODS[name].scope === 'local' ? ErrorCode.Forbidden : ErrorCode.Unauthorized;
    assert.equal(refused?.code ?? null, expected, name);
    assert.equal(refusal(name, { transport: 'unix' }), null, name);
  }
  assert.match(refusal('jobs.list', anonymous)?.message ?? '', /auth\.login/);
});
