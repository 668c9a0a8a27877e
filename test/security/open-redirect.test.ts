// After sign-in the browser goes only to a same-origin path: hostile `next` values (tabs, backslashes,
// vertical tabs, encoded schemes) end on `/` of the service, never on another host, never a 500.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { chromium } from 'playwright-core';
import { startTestServer } from '../support/harness.ts';
import { CookieJar, TEST_PASSWORD, csrfFrom, getPage, postForm, signUpOrIn } from '../support/auth-flow.ts';
import { safeNext } from '../../src/http/forms.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

const HOSTILE = [
  '/\t/evil.example',
  '/\n/evil.example',
  '/\r\n/evil.example',
  '/\u000b/evil.example',
  '/\u0000/evil.example',
  '//evil.example',
  '///evil.example',
  '/\\evil.example',
  '/\\/evil.example',
  '\\\\evil.example',
  '\\/evil.example',
  'https://evil.example/',
  'http:evil.example',
  'javascript:alert(1)',
  '//evil.example/%2e%2e',
  '/ /evil.example',
  '/\u00a0/evil.example',
  '/\u2028/evil.example',
  '/\u3000/evil.example',
  '/%09/../\t/evil.example',
  '/./\t/evil.example',
  `/${'a'.repeat(5000)}`,
  'evil.example',
  ' /account',
  '/\u0085/evil.example',
  '/\u007f/evil.example',
];

test('safeNext: hostile values become /, plain paths survive unchanged', () => {
  for (const v of HOSTILE) assert.equal(safeNext(v), '/', JSON.stringify(v));
  for (const v of ['/account', '/claim/abc?x=1', '/sites?address=15%20Acorn%20St', '/a#frag']) assert.equal(safeNext(v), v);
  assert.equal(safeNext(undefined), '/account');
  assert.equal(safeNext(''), '/account');
  assert.equal(safeNext('/%09/evil.example'), '/%09/evil.example', 'an escaped tab stays a path segment');
});

test('a real sign-in over fetch: every hostile next redirects to a same-origin path, never a 500', async () => {
  const svc = await startTestServer();
  try {
    const email = 'redirect.table@example.com';
    await signUpOrIn(svc.url, email);
    const jar = new CookieJar();
    for (const next of HOSTILE) {
      if (next.includes('\u0000')) {
        // A NUL anywhere in a URL or a form is refused outright (400), before any redirect.
        const form = await getPage(`${svc.url}/signin`, jar);
        const res = await postForm(`${svc.url}/signin`, jar, { csrf: csrfFrom(form.body), email, password: TEST_PASSWORD, next });
        assert.equal(res.status, 400);
        assert.equal((await getPage(`${svc.url}/signin?next=${encodeURIComponent(next)}`, jar)).status, 400);
        continue;
      }
      const form = await getPage(`${svc.url}/signin?next=${encodeURIComponent(next)}`, jar);
      assert.equal(form.status, 200, `GET /signin with ${JSON.stringify(next)}`);
      const res = await postForm(`${svc.url}/signin`, jar, { csrf: csrfFrom(form.body), email, password: TEST_PASSWORD, next });
      assert.equal(res.status, 303, `${JSON.stringify(next)}: ${res.status}`);
      assert.equal(res.location, '/', JSON.stringify(next));
      assert.equal(new URL(res.location!, svc.url).origin, new URL(svc.url).origin);
    }
    const form = await getPage(`${svc.url}/signin`, jar);
    const ok = await postForm(`${svc.url}/signin`, jar, { csrf: csrfFrom(form.body), email, password: TEST_PASSWORD, next: '/sites?address=1' });
    assert.equal(ok.location, '/sites?address=1', 'a plain same-site path is kept');
  } finally {
    await svc.close();
  }
});

test('headless Chromium: signing in with next=/%09/evil.example ends on the service origin', {
  skip: !fs.existsSync(CHROMIUM) && `no Chromium at ${CHROMIUM}`,
}, async () => {
  const svc = await startTestServer();
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS, headless: true });
  try {
    const email = 'redirect.browser@example.com';
    await signUpOrIn(svc.url, email);
    const origin = new URL(svc.url).origin;
    for (const raw of ['/%09/evil.example', '/%0B/evil.example', '/%5C/evil.example', '/%0a/evil.example']) {
      const context = await browser.newContext({ javaScriptEnabled: false });
      const page = await context.newPage();
      const foreign: string[] = [];
      page.on('request', (r) => {
        if (new URL(r.url()).origin !== origin) foreign.push(r.url());
      });
      await page.goto(`${svc.url}/signin?next=${raw}`);
      await page.fill('#email', email);
      await page.fill('#password', TEST_PASSWORD);
      await Promise.all([page.waitForURL((u) => u.pathname !== '/signin'), page.click('button[type=submit]')]);
      assert.equal(new URL(page.url()).origin, origin, `${raw}: ended on ${page.url()}`);
      assert.equal(new URL(page.url()).pathname, '/', raw);
      assert.deepEqual(foreign, [], `${raw}: the browser asked another host`);
      await context.close();
    }
  } finally {
    await browser.close();
    await svc.close();
  }
});
