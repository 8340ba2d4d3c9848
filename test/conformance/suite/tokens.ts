import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ErrorCode } from '../../../shared/protocol';
import { makeEngine, thrown, type TestStoreFactory } from '../harness';

const HASH_A = 'a'.repeat(64);
const HASH_B = 'b'.repeat(64);

/** The access-token tests, run against the store `store` makes. */
export function defineTokens(store: TestStoreFactory): void {
  test('tokens are stored by name with their scope and hash, listed by name, and revoked', async (t) => {
    const { engine, clock, openShared } = makeEngine(t, store);
    await engine.createToken({ name: 'ci', scope: 'worker', hash: HASH_B, createdAt: clock.ms });
    await engine.createToken({ name: 'alice', scope: 'read', hash: HASH_A, createdAt: clock.ms });
    assert.deepEqual(await openShared().listTokens(), [
      { name: 'alice', scope: 'read', hash: HASH_A, createdAt: clock.ms },
      { name: 'ci', scope: 'worker', hash: HASH_B, createdAt: clock.ms },
    ], 'every daemon on the store sees the same tokens');
    assert.equal(await engine.revokeToken('ci'), true);
    assert.equal(await engine.revokeToken('ci'), false, 'a second revoke finds nothing');
    assert.deepEqual((await engine.listTokens()).map((x) => x.name), ['alice']);
  });

  test('a token name is unique, and a scope or hash that is not allowed is refused', async (t) => {
    const { engine, clock } = makeEngine(t, store);
    await engine.createToken({ name: 'ci', scope: 'admin', hash: HASH_A, createdAt: clock.ms });
    const again = await thrown(() => engine.createToken({ name: 'ci', scope: 'read', hash: HASH_B, createdAt: clock.ms }));
    assert.equal(again.code, ErrorCode.AlreadyExists);
    const scope = await thrown(() => engine.createToken({ name: 'x', scope: 'root' as 'admin', hash: HASH_B, createdAt: clock.ms }));
    assert.deepEqual([scope.code, scope.data?.field], [ErrorCode.InvalidParams, 'scope']);
    const hash = await thrown(() => engine.createToken({ name: 'x', scope: 'read', hash: 'secret', createdAt: clock.ms }));
    assert.deepEqual([hash.code, hash.data?.field], [ErrorCode.InvalidParams, 'hash']);
    assert.deepEqual((await engine.listTokens()).map((x) => [x.name, x.scope]), [['ci', 'admin']]);
  });
}
