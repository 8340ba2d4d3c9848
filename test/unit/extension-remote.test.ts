/**
 * The extension's remote daemon settings (extension/daemon/remote.ts): what makes a TLS target,
 * and what is refused with which words, in the settings' own names; and what a token's scope
 * lets the window do (extension/daemon/tokenScope.ts).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RemoteSettingsError, remoteTarget, tokenKey } from '../../extension/daemon/remote';
import { mayEnqueue, mayManage, type WindowScope } from '../../extension/daemon/tokenScope';
import { editorMessage } from '../../extension/errors';
import { pageActions } from '../../extension/views/jobPage/model';
import { ErrorCode } from '../../shared/protocol';
import { SpoolError } from '../../shared/protocol/errors';

const FP = `sha256:${'ab'.repeat(32)}`;

function refused(fn: () => unknown): RemoteSettingsError {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof RemoteSettingsError, String(error));
    return error;
  }
  assert.fail('expected a RemoteSettingsError');
}

test('an endpoint with a fingerprint and a token makes a TLS target; the fingerprint may be as openssl prints it', () => {
  assert.deepEqual(remoteTarget({ endpoint: 'tls://build-box:7420', tlsFingerprint: FP, tlsCa: '' }, ' tok '), { host: 'build-box', port: 7420, token: 'tok', fingerprint: FP });
  const openssl = `SHA256 Fingerprint=${'AB:'.repeat(31)}AB`;
  assert.equal(remoteTarget({ endpoint: 'tls://[::1]:7420', tlsFingerprint: openssl, tlsCa: '' }, 'tok').fingerprint, FP);
});

test('a CA file is read instead of a fingerprint; one that cannot be read names spool.tlsCa', () => {
  const target = remoteTarget({ endpoint: 'tls://h:1', tlsFingerprint: '', tlsCa: '/ca.pem' }, 'tok', (file) => `PEM of ${file}`);
  assert.equal(target.ca, 'PEM of /ca.pem');
  const e = refused(() => remoteTarget({ endpoint: 'tls://h:1', tlsFingerprint: '', tlsCa: '/nope.pem' }, 'tok', () => {
    throw new Error('ENOENT: no such file');
  }));
  assert.match(e.message, /spool\.tlsCa \(\/nope\.pem\): ENOENT/);
  assert.equal(e.fix, 'settings');
});

test('never unverified: no fingerprint and no CA is refused, naming both settings', () => {
  const e = refused(() => remoteTarget({ endpoint: 'tls://h:7420', tlsFingerprint: '', tlsCa: '' }, 'tok'));
  assert.match(e.message, /will not connect to tls:\/\/h:7420 without checking who answers/);
  assert.match(e.message, /spool\.tlsFingerprint/);
  assert.match(e.message, /spool\.tlsCa/);
  assert.equal(e.fix, 'settings');
});

test('no token (or a blank one) asks for the set-token command; a bad endpoint or fingerprint names its setting', () => {
  for (const token of [undefined, '  ']) {
    const e = refused(() => remoteTarget({ endpoint: 'tls://h:7420', tlsFingerprint: FP, tlsCa: '' }, token));
    assert.match(e.message, /needs an access token for tls:\/\/h:7420/);
    assert.match(e.message, /Spool: Set Access Token for Remote Daemon/);
    assert.equal(e.fix, 'token');
  }
  assert.match(refused(() => remoteTarget({ endpoint: 'http://h:7420', tlsFingerprint: FP, tlsCa: '' }, 'tok')).message, /spool\.endpoint is "http:\/\/h:7420", not tls:\/\/HOST:PORT/);
  assert.match(refused(() => remoteTarget({ endpoint: 'tls://h:7420', tlsFingerprint: 'sha256:short', tlsCa: '' }, 'tok')).message, /spool\.tlsFingerprint is not sha256: and 64 hex digits/);
});

test('tokens are kept per endpoint', () => {
  assert.notEqual(tokenKey('tls://a:1'), tokenKey('tls://b:1'));
  assert.equal(tokenKey(' tls://a:1 '), tokenKey('tls://a:1'));
});

test('a read or worker token: what the window may do, and a refusal in the editor\'s words, not the protocol\'s', () => {
  assert.deepEqual([null, 'admin', 'worker', 'read'].map((s) => [mayEnqueue(s as WindowScope), mayManage(s as WindowScope)]), [
    [true, true],
    [true, true],
    [true, false],
    [false, false],
  ]);
  const forbidden = new SpoolError(ErrorCode.Forbidden, 'The token "editor" has scope read, which may not call jobs.retry: that needs admin.', { field: 'method', scope: 'read', allowed: 'admin' });
  const message = editorMessage(forbidden);
  assert.equal(message, 'This token can only read: this needs an admin token. Make one on the daemon\'s machine and set it with "Spool: Set Access Token for Remote Daemon".');
  assert.doesNotMatch(message, /may not call|jobs\.retry/);
  const enqueue = new SpoolError(ErrorCode.Forbidden, 'The token "editor" has scope read, which may not call jobs.enqueue: that needs worker or admin.', { field: 'method', scope: 'read', allowed: 'worker, admin' });
  assert.match(editorMessage(enqueue), /^This token can only read: this needs a worker or admin token\./);
});

test('the job page offers no action a read token cannot do', () => {
  const dead = { state: 'dead' as const };
  assert.deepEqual(pageActions(dead, false, 'read'), ['copyId', 'openJson', 'showOutput']);
  assert.deepEqual(pageActions(dead, false, 'worker'), ['editAndRequeue', 'copyId', 'openJson', 'showOutput']);
  assert.deepEqual(pageActions(dead, false, null), ['retry', 'editAndRequeue', 'delete', 'copyId', 'openJson', 'showOutput']);
});
