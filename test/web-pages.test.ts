// The pages around the snapshot over real HTTP: the coverage page (every place, its status and data
// vintages, old data flagged), HTML error pages for browsers while API clients keep JSON, the home
// page for a signed-out visitor, and the account page's linked agents with revoke.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { startTestServer, type TestServer } from './support/harness.ts';
import { loadAllManifests, PLACES_DIR } from '../src/places/manifest.ts';
import { HttpApp } from '../src/http/http-app.ts';
import { createHttpServer } from '../src/http/server.ts';
import { installErrorPages } from '../src/web/error-pages.ts';
import {
  CLAIM_GRANT,
  JWT_BEARER_GRANT,
  CookieJar,
  claimUserIdentity,
  csrfFrom,
  getPage,
  postForm,
  signUpOrIn,
  tokenRequest,
  postJson,
} from './support/auth-flow.ts';

describe('pages around the snapshot', () => {
  let svc: TestServer;
  before(async () => {
    svc = await startTestServer({ places: ['cambridge-ma', 'chicago-il'] });
  });
  after(async () => {
    await svc?.close();
  });

  test('coverage page: every catalogued place with its status, reason and layer vintages; old data says so', async () => {
    const res = await getPage(`${svc.url}/coverage`, new CookieJar());
    assert.equal(res.status, 200);
    // Every place the manifests declare (derived, so adding a place does not break this test).
    const manifests = loadAllManifests(PLACES_DIR);
    for (const m of manifests) assert.match(res.body, new RegExp(`id="place-${m.slug}"`), m.slug);
    assert.equal(res.body.match(/<section class="card place" id="place-/g)?.length, manifests.length);
    assert.match(res.body, new RegExp(`of the ${manifests.length} places it catalogues`));
    const cambridge = /id="place-cambridge-ma"[\s\S]*?<\/section>/.exec(res.body)![0];
    assert.match(cambridge, /data-status="live"/);
    assert.match(cambridge, /FY2014 \(2014-10-16\) <span class="badge badge-indicative">old data: \d+ years<\/span>/);
    assert.match(cambridge, /Zoning districts<br>[\s\S]*?2026-03-03/);
    const chicago = /id="place-chicago-il"[\s\S]*?<\/section>/.exec(res.body)![0];
    assert.match(chicago, /data-status="planned_not_live"[^>]*>planned, not live</);
    assert.match(chicago, /no parcels or address table/);
    // Saanich is catalogued but not imported on this server.
    assert.match(/id="place-saanich-bc"[\s\S]*?<\/section>/.exec(res.body)![0], /Not imported on this server yet/);
  });

  test('a browser gets an HTML 404 page; an API client (or an /api path) gets the JSON envelope', async () => {
    const html = await fetch(`${svc.url}/no-such-page`, { headers: { accept: 'text/html,application/xhtml+xml' } });
    assert.equal(html.status, 404);
    assert.match(html.headers.get('content-type') ?? '', /text\/html/);
    const body = await html.text();
    assert.match(body, /<h1>Page not found<\/h1>/);
    assert.match(body, /href="\/sites"/);
    assert.match(body, /id="request-id">[^<]+</);
    const json = await fetch(`${svc.url}/no-such-page`);
    assert.equal(json.status, 404);
    assert.equal(((await json.json()) as { error: { code: string } }).error.code, 'not_found');
    const api = await fetch(`${svc.url}/api/no-such-thing`, { headers: { accept: 'text/html' } });
    assert.match(api.headers.get('content-type') ?? '', /application\/json/);
    // A POST from a form to a GET-only page is not a page view: JSON 405 stays.
    const post = await fetch(`${svc.url}/coverage`, { method: 'POST', headers: { accept: 'text/html' } });
    assert.equal(post.status, 405);
    assert.match(post.headers.get('content-type') ?? '', /application\/json/);
  });

  test('an unexpected failure: a browser gets an HTML 500 page with the request id and no detail; an API client JSON', async () => {
    const app = new HttpApp(svc.ctx.logger);
    installErrorPages(app);
    app.get('/boom', () => {
      throw new Error('secret detail of the failure');
    });
    const server = createHttpServer(svc.ctx, app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const page = await fetch(`${base}/boom`, { headers: { accept: 'text/html' } });
      assert.equal(page.status, 500);
      const body = await page.text();
      assert.match(body, /<h1>Something went wrong<\/h1>/);
      assert.match(body, new RegExp(`id="request-id">${page.headers.get('x-request-id')}<`));
      assert.doesNotMatch(body, /secret detail/);
      const api = await fetch(`${base}/boom`);
      assert.equal(api.status, 500);
      assert.equal(((await api.json()) as { error: { code: string } }).error.code, 'internal');
    } finally {
      server.close();
    }
  });

  test('home page for a signed-out visitor: what they get and why sign-in is needed; signed in: no pitch', async () => {
    const out = await getPage(`${svc.url}/`, new CookieJar());
    assert.match(out.body, /id="what-you-get"/);
    assert.match(out.body, /id="why-sign-in"/);
    assert.match(out.body, /<strong>Cambridge, MA<\/strong>/, 'the live places are named');
    assert.match(out.body, /href="\/coverage"/);
    const jar = await signUpOrIn(svc.url, 'home.member@example.com');
    const inside = await getPage(`${svc.url}/`, jar);
    assert.doesNotMatch(inside.body, /id="why-sign-in"/);
    assert.match(inside.body, /Signed in as <strong>home\.member@example\.com<\/strong>/);
  });

  test('account page: linked agents listed; revoke refuses the assertion; CSRF and other accounts are refused', async () => {
    const email = 'agents.owner@example.com';
    const { identityAssertion, jar } = await claimUserIdentity(svc.url, email);
    const page = await getPage(`${svc.url}/account`, jar);
    assert.equal(page.status, 200);
    const m = /action="\/account\/agents\/([^/"]+)\/revoke"/.exec(page.body);
    assert.ok(m, 'a revoke form for the linked agent');
    const registrationId = m[1]!;
    assert.match(page.body, /id="linked-agents"[\s\S]*linked by e-mail/);

    // Without the CSRF token: refused, nothing revoked.
    const forged = await postForm(`${svc.url}/account/agents/${registrationId}/revoke`, jar, {});
    assert.equal(forged.status, 403);
    assert.equal((await tokenRequest(svc.url, { grant_type: JWT_BEARER_GRANT, assertion: identityAssertion })).status, 200, 'still valid');

    // Another account cannot revoke it (and learns nothing more than "not yours").
    const other = await signUpOrIn(svc.url, 'agents.stranger@example.com');
    const otherPage = await getPage(`${svc.url}/account`, other);
    const stolen = await postForm(`${svc.url}/account/agents/${registrationId}/revoke`, other, { csrf: csrfFrom(otherPage.body) });
    assert.equal(stolen.status, 404);
    assert.equal((await tokenRequest(svc.url, { grant_type: JWT_BEARER_GRANT, assertion: identityAssertion })).status, 200, 'still valid');

    const done = await postForm(`${svc.url}/account/agents/${registrationId}/revoke`, jar, { csrf: csrfFrom(page.body) });
    assert.equal(done.status, 303);
    assert.equal(done.location, '/account#linked-agents');
    const exchange = await tokenRequest(svc.url, { grant_type: JWT_BEARER_GRANT, assertion: identityAssertion });
    assert.equal(exchange.status, 400);
    assert.equal(exchange.json.error, 'invalid_grant');
    const after = await getPage(`${svc.url}/account`, jar);
    assert.match(after.body, new RegExp(`id="agent-${registrationId}"[\\s\\S]*?>revoked<`));
    assert.doesNotMatch(after.body, new RegExp(`action="/account/agents/${registrationId}/revoke"`));
  });

  test('revoking an agent claimed but not yet polled: the claim poll no longer delivers tokens', async () => {
    const email = 'agents.unpolled@example.com';
    const jar = await signUpOrIn(svc.url, email);
    const reg = await postJson(`${svc.url}/api/auth/agent/identity`, { type: 'service_auth', login_hint: email });
    const claimPage = await getPage(reg.json.claim.verification_uri.replace(/^https?:\/\/[^/]+/, svc.url), jar);
    await postForm(reg.json.claim.verification_uri.replace(/^https?:\/\/[^/]+/, svc.url), jar, {
      csrf: csrfFrom(claimPage.body),
      user_code: reg.json.claim.user_code,
    });
    const account = await getPage(`${svc.url}/account`, jar);
    const id = /action="\/account\/agents\/([^/"]+)\/revoke"/.exec(account.body)![1]!;
    assert.equal((await postForm(`${svc.url}/account/agents/${id}/revoke`, jar, { csrf: csrfFrom(account.body) })).status, 303);
    const poll = await tokenRequest(svc.url, { grant_type: CLAIM_GRANT, claim_token: reg.json.claim_token });
    assert.equal(poll.status, 400);
    assert.equal(poll.json.error, 'invalid_grant');
  });
});
