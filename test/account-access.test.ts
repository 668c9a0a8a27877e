// The account page says who has access: every MCP client allowed through browser sign-in (its name,
// redirect host, when allowed, last used, revoke), and every agent and CLI login by a name a person
// recognises (the registration's label, "CLI on <host>"), with last use and revoke. Over real HTTP:
// the official SDK's OAuth flow, the agent registration API and the page's own forms.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { auth } from '@modelcontextprotocol/client';
import { startTestServer } from './support/harness.ts';
import {
  CLAIM_GRANT,
  CookieJar,
  JWT_BEARER_GRANT,
  confirmClaimOnPage,
  csrfFrom,
  getPage,
  postForm,
  postJson,
  signUpOrIn,
  tokenRequest,
} from './support/auth-flow.ts';
import { authorizeWithConsent } from './support/oauth-flow.ts';

test('an allowed MCP client is listed with its name, redirect host, when allowed and last used; revoking ends its refresh', async () => {
  const svc = await startTestServer();
  try {
    const base = svc.ctx.config.baseUrl;
    const jar = await signUpOrIn(svc.url, 'oauth.lister@example.com');
    const before = await getPage(`${svc.url}/account`, jar);
    assert.match(before.body, /id="connected-apps"[\s\S]*No app has signed in/);

    const { client, serverUrl, code, iss } = await authorizeWithConsent(svc.url, base, jar, 'http://127.0.0.1:4567/callback');
    assert.equal(await auth(client, { serverUrl, authorizationCode: code, iss }), 'AUTHORIZED');
    const refresh = client.saved.refresh_token as string;

    const page = await getPage(`${svc.url}/account`, jar);
    const today = new Date().toISOString().slice(0, 10);
    const item = /<li class="app">([\s\S]*?)<\/li>/.exec(page.body);
    assert.ok(item, 'the client is listed');
    const text = item[1]!;
    const clientId = client.info.client_id as string;
    assert.match(text, /class="app-name">Test MCP client</);
    assert.ok(text.includes(`(${clientId})`));
    assert.match(text, /returns to <code>127\.0\.0\.1:4567<\/code>/);
    // In people's words (issue 49, item 5), not ISO.
    assert.match(text, /allowed (just now|\d+ minutes? ago \(\d\d:\d\d UTC\)), last used (just now|\d+ minutes? ago)/);
    assert.ok(!text.includes(today), 'no ISO date');

    // CSRF, and another account: refused, nothing withdrawn.
    const revoke = `${svc.url}/account/apps/revoke`;
    assert.equal((await postForm(revoke, jar, { clientId })).status, 403);
    const other = await signUpOrIn(svc.url, 'oauth.stranger@example.com');
    const otherPage = await getPage(`${svc.url}/account`, other);
    assert.doesNotMatch(otherPage.body, /Test MCP client/, 'another account does not see it');
    assert.equal((await postForm(revoke, other, { csrf: csrfFrom(otherPage.body), clientId })).status, 404);
    const renewed = await tokenRequest(svc.url, { grant_type: 'refresh_token', refresh_token: refresh, client_id: clientId });
    assert.equal(renewed.status, 200, JSON.stringify(renewed.json));

    const done = await postForm(revoke, jar, { csrf: csrfFrom(page.body), clientId });
    assert.equal(done.status, 303);
    assert.equal(done.location, '/account#connected-apps');
    const refused = await tokenRequest(svc.url, { grant_type: 'refresh_token', refresh_token: renewed.json.refresh_token, client_id: clientId });
    assert.equal(refused.status, 400);
    assert.equal(refused.json.error, 'invalid_grant');
    const after = await getPage(`${svc.url}/account`, jar);
    assert.doesNotMatch(after.body, /class="app-name">Test MCP client/, 'no longer listed');
    assert.match(after.body, /id="page-message">The app &quot;Test MCP client&quot; is revoked/, 'the revoke is confirmed');
  } finally {
    await svc.close();
  }
});

test('agents are listed by their label (or kind and short id) with last use; a bad label is refused', async () => {
  const svc = await startTestServer();
  try {
    const email = 'labels.owner@example.com';
    const jar = await signUpOrIn(svc.url, email);
    const claim = async (body: Record<string, unknown>) => {
      const reg = await postJson(`${svc.url}/api/auth/agent/identity`, { type: 'service_auth', login_hint: email, ...body });
      assert.equal(reg.status, 201, JSON.stringify(reg.json));
      assert.equal((await confirmClaimOnPage(svc.url, reg.json.claim.verification_uri, reg.json.claim.user_code, jar)).status, 200);
      const poll = await tokenRequest(svc.url, { grant_type: CLAIM_GRANT, claim_token: reg.json.claim_token });
      assert.equal(poll.status, 200);
      return poll.json.identity_assertion as string;
    };
    const labelled = await claim({ label: 'Claude Desktop on the studio Mac' });
    await claim({});
    assert.equal((await tokenRequest(svc.url, { grant_type: JWT_BEARER_GRANT, assertion: labelled })).status, 200);

    const page = await getPage(`${svc.url}/account`, jar);
    const today = new Date().toISOString().slice(0, 10);
    assert.match(
      page.body,
      /class="agent-name">Claude Desktop on the studio Mac<\/strong> \(linked by e-mail, <code>[^<]+<\/code>\), linked (just now|\d+ minutes? ago \([^)]+\)), last used (just now|\d+ minutes? ago)/,
    );
    assert.ok(!page.body.includes(`linked ${today}`), 'no ISO date');
    // No label: what registered it (Node's fetch says "node"), with the short id beside it.
    assert.match(page.body, /class="agent-name">Agent registered with node<\/strong> \(linked by e-mail, <code>[0-9a-f]{6}…[0-9a-f]{6}<\/code>\)/);
    assert.match(page.body, /aria-label="Revoke Claude Desktop on the studio Mac"/);

    for (const label of ['x'.repeat(81), 'two\nlines', '']) {
      const bad = await postJson(`${svc.url}/api/auth/agent/identity`, { type: 'anonymous', label });
      assert.equal(bad.status, 400, `label ${JSON.stringify(label)}`);
      assert.equal(bad.json.error, 'invalid_request');
    }
    assert.equal((await postJson(`${svc.url}/api/auth/agent/identity`, { type: 'anonymous', label: 'fine' })).status, 201);
    assert.equal((await getPage(`${svc.url}/account`, new CookieJar())).status, 303);
  } finally {
    await svc.close();
  }
});
