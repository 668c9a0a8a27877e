import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SignJWT, generateKeyPair, decodeProtectedHeader } from 'jose';
import { createTestDb, testCtx } from '../../test/support/harness.ts';
import { ManualClock } from '../clock.ts';
import { verifyBearer, wwwAuthenticate } from './verify-bearer.ts';
import { mintUserJwt } from './user-jwt.ts';
import { activeSigningKey, ensureSigningKey, loadSigningKeys, rotateSigningKey } from './signing-keys.ts';
import { mcpResource } from './endpoints.ts';

test('verifyBearer: none, malformed, valid JWT, expiry, audience, foreign key, rotation', async () => {
  const t = await createTestDb();
  try {
    const clock = new ManualClock(Date.UTC(2026, 2, 1));
    const ctx = testCtx(t.db, { baseUrl: 'https://siteline.example' }, clock);
    await ensureSigningKey(ctx);

    assert.deepEqual(await verifyBearer(ctx, undefined), { kind: 'none' });
    assert.equal((await verifyBearer(ctx, 'Basic abc')).kind, 'invalid');
    assert.equal((await verifyBearer(ctx, 'Bearer')).kind, 'invalid');
    assert.equal((await verifyBearer(ctx, 'Bearer slpt_doesnotexist')).kind, 'invalid');
    assert.equal((await verifyBearer(ctx, 'Bearer random-garbage')).kind, 'invalid');

    const { token } = await mintUserJwt(ctx, { accountId: 'acc-1', scopes: ['mcp'], clientId: 'agent' });
    const ok = await verifyBearer(ctx, `Bearer ${token}`);
    assert.equal(ok.kind, 'valid');
    if (ok.kind === 'valid') {
      assert.equal(ok.caller.accountId, 'acc-1');
      assert.equal(ok.caller.subject, 'acc-1');
      assert.deepEqual(ok.caller.scopes, ['mcp']);
      assert.equal(ok.caller.tokenType, 'jwt');
    }

    // A key persisted in the database: a second load gives the same kid.
    const kid1 = (await loadSigningKeys(ctx)).active.kid;
    await ensureSigningKey(ctx);
    assert.equal((await loadSigningKeys(ctx)).active.kid, kid1);
    assert.equal(decodeProtectedHeader(token).kid, kid1);

    // A verified token is remembered; a remembered one still expires on the context clock.
    assert.deepEqual(await verifyBearer(ctx, `Bearer ${token}`), ok);
    const tampered = token.slice(0, -3) + (token.endsWith('AAA') ? 'BBB' : 'AAA');
    assert.equal((await verifyBearer(ctx, `Bearer ${tampered}`)).kind, 'invalid', 'another signature is checked, not remembered');
    clock.advance(3599_000);
    assert.equal((await verifyBearer(ctx, `Bearer ${token}`)).kind, 'valid');
    clock.advance(2_000);
    const expired = await verifyBearer(ctx, `Bearer ${token}`);
    assert.deepEqual(expired, { kind: 'invalid', reason: 'The access token has expired.' });

    // Audience with a trailing slash is accepted; another audience is not.
    const { key, kid, alg } = await activeSigningKey(ctx);
    const now = Math.floor(clock.now().getTime() / 1000);
    const sign = (aud: string, k = key, iss = 'https://siteline.example') =>
      new SignJWT({ scope: 'mcp' })
        .setProtectedHeader({ alg, kid })
        .setIssuer(iss)
        .setSubject('acc-2')
        .setAudience(aud)
        .setIssuedAt(now)
        .setExpirationTime(now + 60)
        .sign(k);
    assert.equal((await verifyBearer(ctx, `Bearer ${await sign(mcpResource(ctx.config) + '/')}`)).kind, 'valid');
    assert.equal((await verifyBearer(ctx, `Bearer ${await sign('https://other.example/api/mcp')}`)).kind, 'invalid');
    assert.equal((await verifyBearer(ctx, `Bearer ${await sign(mcpResource(ctx.config), key, 'https://evil.example')}`)).kind, 'invalid');
    const foreign = await generateKeyPair('ES256');
    assert.equal((await verifyBearer(ctx, `Bearer ${await sign(mcpResource(ctx.config), foreign.privateKey)}`)).kind, 'invalid');

    // Rotation: the old key stays published, new tokens carry the new kid.
    const before = (await mintUserJwt(ctx, { accountId: 'acc-3', scopes: ['mcp'], clientId: 'agent' })).token;
    const kid2 = await rotateSigningKey(ctx);
    assert.notEqual(kid2, kid1);
    const after = (await mintUserJwt(ctx, { accountId: 'acc-3', scopes: ['mcp'], clientId: 'agent' })).token;
    assert.equal(decodeProtectedHeader(after).kid, kid2);
    assert.equal((await verifyBearer(ctx, `Bearer ${before}`)).kind, 'valid');
    assert.equal((await verifyBearer(ctx, `Bearer ${after}`)).kind, 'valid');
    assert.equal((await loadSigningKeys(ctx)).publicJwks.length, 2);
    for (const k of (await loadSigningKeys(ctx)).publicJwks) assert.equal((k as { d?: string }).d, undefined, 'no private part published');

    assert.equal(
      wwwAuthenticate(ctx, { error: 'insufficient_scope', scope: 'mcp' }),
      'Bearer resource_metadata="https://siteline.example/.well-known/oauth-protected-resource/api/mcp", error="insufficient_scope", scope="mcp"',
    );
  } finally {
    await t.close();
  }
});
