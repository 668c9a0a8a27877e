// Revocation that revokes: an access token already issued (a JWT, about an hour) is refused at
// /api/mcp the moment the person signs out everywhere, revokes the agent (or CLI login) that holds it,
// or revokes the OAuth app that holds it on the account page. Real tokens from the real flows, the
// real server, real MCP requests; what was not revoked keeps working.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { auth } from '@modelcontextprotocol/client';
import { startTestServer, type TestServer } from '../support/harness.ts';
import { JWT_BEARER_GRANT, claimUserIdentity, csrfFrom, getPage, postForm, signUpOrIn, tokenRequest } from '../support/auth-flow.ts';
import { authorizeWithConsent } from '../support/oauth-flow.ts';
import { modernRequest, postRpc } from '../mcp-support.ts';

let svc: TestServer;
before(async () => {
  svc = await startTestServer();
});
after(async () => {
  await svc?.close();
});

/** tools/list at /api/mcp with the token: 200 when it opens the endpoint, 401 when refused. */
async function mcpStatus(token: string): Promise<{ status: number; wwwAuthenticate: string | null; message: string }> {
  const r = await postRpc(svc.url, modernRequest('tools/list'), { authorization: `Bearer ${token}` });
  return { status: r.status, wwwAuthenticate: r.headers.get('www-authenticate'), message: r.message?.error?.message ?? '' };
}
const restStatus = async (token: string) => (await fetch(`${svc.url}/api/v1/usage`, { headers: { authorization: `Bearer ${token}` } })).status;

/** A linked agent (service_auth claim on the real page) and the `mcp` JWT it exchanges its assertion for. */
async function agentToken(email: string): Promise<{ token: string; registrationId: string }> {
  const claimed = await claimUserIdentity(svc.url, email);
  const tok = await tokenRequest(svc.url, { grant_type: JWT_BEARER_GRANT, assertion: claimed.identityAssertion });
  assert.equal(tok.status, 200);
  const reg = JSON.parse(Buffer.from((tok.json.access_token as string).split('.')[1]!, 'base64url').toString('utf8')).agent_registration as string;
  assert.ok(reg, 'the token names its agent');
  return { token: tok.json.access_token as string, registrationId: reg };
}

/** The browser OAuth flow of an MCP client: DCR, PKCE, sign-in, consent, code exchange. */
async function oauthToken(email: string, name: string): Promise<{ token: string; clientId: string; refresh: string }> {
  const base = svc.ctx.config.baseUrl;
  const jar = await signUpOrIn(base, email);
  const { client, serverUrl, code, iss } = await authorizeWithConsent(svc.url, base, jar);
  client.saved = undefined;
  Object.defineProperty(client, 'name', { value: name });
  assert.equal(await auth(client, { serverUrl, authorizationCode: code, iss }), 'AUTHORIZED');
  return { token: client.saved.access_token as string, clientId: client.info.client_id as string, refresh: client.saved.refresh_token as string };
}

/** Waits until the wall clock is past the second of `ms` (a JWT's iat has whole seconds). */
async function nextSecond(ms: number): Promise<void> {
  while (Math.floor(Date.now() / 1000) <= Math.floor(ms / 1000)) await new Promise((r) => setTimeout(r, 50));
}

test('sign out everywhere: the agent token and the OAuth app token of the account are refused at /api/mcp at once; another account keeps working; a new sign-in works', async () => {
  const email = 'revoke-all@example.com';
  const agent = await agentToken(email);
  const app = await oauthToken(email, 'Everywhere app');
  const bystander = await agentToken('revoke-bystander@example.com');
  for (const t of [agent.token, app.token, bystander.token]) assert.equal((await mcpStatus(t)).status, 200, 'works before');
  assert.equal(await restStatus(agent.token), 200, 'opens the REST API before');

  const laptop = await signUpOrIn(svc.url, email);
  const account = await getPage(`${svc.url}/account`, laptop);
  const out = await postForm(`${svc.url}/signout/everywhere`, laptop, { csrf: csrfFrom(account.body) });
  assert.equal(out.status, 303);
  // Taken after the answer: the server recorded the revocation at or before this instant (under load the
  // request can cross a second boundary, and a time taken before it named a second too early).
  const at = Date.now();

  for (const t of [agent.token, app.token]) {
    const r = await mcpStatus(t);
    assert.equal(r.status, 401, 'refused at once');
    assert.match(r.wwwAuthenticate ?? '', /error="invalid_token"/);
    assert.match(r.message, /has been revoked/);
  }
  assert.equal(await restStatus(agent.token), 401, 'and on the REST API');
  assert.equal((await mcpStatus(bystander.token)).status, 200, 'another account is untouched');

  // Signing in again afterwards gives a token that works (issued after the revocation's second).
  await nextSecond(at);
  const fresh = await agentToken(email);
  assert.equal((await mcpStatus(fresh.token)).status, 200);
  assert.equal((await mcpStatus(agent.token)).status, 401, 'the old one stays refused');
});

test("revoking one linked agent (or CLI login) on the account page refuses its token at once; the account's other agent keeps working", async () => {
  const email = 'revoke-agent@example.com';
  const first = await agentToken(email);
  const second = await agentToken(email);
  assert.notEqual(first.registrationId, second.registrationId);
  for (const t of [first.token, second.token]) assert.equal((await mcpStatus(t)).status, 200);
  const jar = await signUpOrIn(svc.url, email);
  const page = await getPage(`${svc.url}/account`, jar);
  assert.match(page.body, new RegExp(`action="/account/agents/${first.registrationId}/revoke"`));
  const revoked = await postForm(`${svc.url}/account/agents/${first.registrationId}/revoke`, jar, { csrf: csrfFrom(page.body) });
  assert.equal(revoked.status, 303);
  assert.equal((await mcpStatus(first.token)).status, 401, "the revoked agent's token is refused at once");
  assert.equal((await mcpStatus(second.token)).status, 200, 'the other agent keeps working');
  // Another account cannot revoke it (404, nothing changes).
  const other = await signUpOrIn(svc.url, 'revoke-agent-other@example.com');
  const otherPage = await getPage(`${svc.url}/account`, other);
  const refused = await postForm(`${svc.url}/account/agents/${second.registrationId}/revoke`, other, { csrf: csrfFrom(otherPage.body) });
  assert.equal(refused.status, 404);
  assert.equal((await mcpStatus(second.token)).status, 200);
});

test("revoking a connected app on the account page refuses its access token at once and its refresh token; the account's agent keeps working", async () => {
  const email = 'revoke-app@example.com';
  const app = await oauthToken(email, 'Revocable app');
  const agent = await agentToken(email);
  assert.equal((await mcpStatus(app.token)).status, 200);
  const jar = await signUpOrIn(svc.url, email);
  const page = await getPage(`${svc.url}/account`, jar);
  assert.match(page.body, /id="connected-apps"/);
  assert.ok(page.body.includes(`value="${app.clientId}"`), 'the app is listed');
  // A forged form (no CSRF) changes nothing.
  assert.equal((await postForm(`${svc.url}/account/apps/revoke`, jar, { csrf: 'forged', clientId: app.clientId })).status, 403);
  assert.equal((await mcpStatus(app.token)).status, 200);
  const revoked = await postForm(`${svc.url}/account/apps/revoke`, jar, { csrf: csrfFrom(page.body), clientId: app.clientId });
  assert.equal(revoked.status, 303);
  assert.equal((await mcpStatus(app.token)).status, 401, "the app's token is refused at once");
  assert.equal((await mcpStatus(agent.token)).status, 200, 'the agent keeps working');
  const refresh = await fetch(`${svc.url}/api/auth/mcp/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: app.refresh, client_id: app.clientId }).toString(),
  });
  assert.equal(refresh.status, 400, 'the refresh token is gone too');
  const after = await getPage(`${svc.url}/account`, jar);
  assert.ok(!after.body.includes(`value="${app.clientId}"`), 'no longer listed');
  // Revoking an app this account never granted anything is a 404.
  assert.equal((await postForm(`${svc.url}/account/apps/revoke`, jar, { csrf: csrfFrom(after.body), clientId: 'no-such-client' })).status, 404);
});
