// Revoking an identity assertion also revokes the opaque tokens minted from it; "Sign out everywhere"
// ends every web session of the account and withdraws its OAuth grants (a refresh token stops working).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { auth } from '@modelcontextprotocol/client';
import { startTestServer } from '../support/harness.ts';
import { JWT_BEARER_GRANT, csrfFrom, getPage, postForm, postJson, signUpOrIn, tokenRequest } from '../support/auth-flow.ts';
import { authorizeWithConsent } from '../support/oauth-flow.ts';

const me = async (url: string, token: string) => (await fetch(`${url}/api/auth/me`, { headers: { authorization: `Bearer ${token}` } })).status;

test('revoking an identity assertion revokes the opaque access tokens minted from it', async () => {
  const svc = await startTestServer();
  try {
    const reg = await postJson(`${svc.url}/api/auth/agent/identity`, { type: 'anonymous' });
    const assertion = reg.json.identity_assertion as string;
    const tokens = [];
    for (let i = 0; i < 2; i++) tokens.push((await tokenRequest(svc.url, { grant_type: JWT_BEARER_GRANT, assertion })).json.access_token as string);
    for (const t of tokens) assert.equal(await me(svc.url, t), 200);
    const rev = await postJson(`${svc.url}/api/auth/agent/revoke`, { token: assertion });
    assert.equal(rev.status, 200);
    assert.equal(rev.json.token_type, 'identity_assertion');
    for (const t of tokens) assert.equal(await me(svc.url, t), 401, 'a token minted from the revoked assertion is refused');
    assert.equal((await tokenRequest(svc.url, { grant_type: JWT_BEARER_GRANT, assertion })).json.error, 'invalid_grant');
  } finally {
    await svc.close();
  }
});

test('sign out everywhere: every session of the account ends and its OAuth refresh token stops working', async () => {
  const svc = await startTestServer();
  try {
    const base = svc.ctx.config.baseUrl;
    const email = 'everywhere@example.com';
    const laptop = await signUpOrIn(svc.url, email);
    const phone = await signUpOrIn(svc.url, email);
    const other = await signUpOrIn(svc.url, 'bystander@example.com');
    const oauthJar = await signUpOrIn(base, email);
    const { client, serverUrl, code, iss } = await authorizeWithConsent(svc.url, base, oauthJar);
    assert.equal(await auth(client, { serverUrl, authorizationCode: code, iss }), 'AUTHORIZED');
    const refresh = client.saved.refresh_token as string;

    const account = await getPage(`${svc.url}/account`, laptop);
    assert.match(account.body, /Sign out everywhere/);
    const out = await postForm(`${svc.url}/signout/everywhere`, laptop, { csrf: csrfFrom(account.body) });
    assert.equal(out.status, 303);
    for (const jar of [laptop, phone]) assert.equal((await getPage(`${svc.url}/account`, jar)).status, 303, 'signed out');
    assert.equal((await getPage(`${svc.url}/account`, other)).status, 200, 'another account is untouched');
    const again = await fetch(`${svc.url}/api/auth/mcp/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refresh, client_id: client.info.client_id }).toString(),
    });
    assert.equal(again.status, 400);
    assert.equal(((await again.json()) as { error: string }).error, 'invalid_grant');
    // Without a valid CSRF token nothing happens.
    const forged = await postForm(`${svc.url}/signout/everywhere`, other, { csrf: 'forged' });
    assert.equal(forged.status, 403);
  } finally {
    await svc.close();
  }
});
