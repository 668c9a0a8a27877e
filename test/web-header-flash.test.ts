// Over real HTTP: the signed-in header on the map, the API reference and the development outbox (they
// showed the signed-out one); a misspelt city gets "did you mean"; a street not found in a covered
// city is headed so, not "Address not covered". (One-time messages: test/web-projects.test.ts.)
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from './support/harness.ts';
import { CookieJar, getPage, signUpOrIn } from './support/auth-flow.ts';

let svc: TestServer;
before(async () => {
  svc = await startTestServer({ places: ['cambridge-ma'] });
});
after(async () => svc?.close());

const sites = (address: string) => `${svc.url}/sites?${new URLSearchParams({ address })}`;
const h1 = (body: string) => /<h1>([^<]*)<\/h1>/.exec(body)?.[1];

test('/map, /docs/api and /dev/outbox show the signed-in header to a signed-in person, and the signed-out one otherwise', async () => {
  const jar = await signUpOrIn(svc.url, 'header.pages@example.com');
  for (const path of ['/map', '/docs/api', '/dev/outbox']) {
    const signedIn = await getPage(`${svc.url}${path}`, jar);
    assert.equal(signedIn.status, 200, path);
    assert.match(signedIn.body, /<span class="who">Signed in as header\.pages@example\.com<\/span>/, path);
    assert.match(signedIn.body, /href="\/projects"/, `${path}: the signed-in navigation`);
    const signedOut = await getPage(`${svc.url}${path}`, new CookieJar());
    assert.equal(signedOut.status, 200, path);
    assert.doesNotMatch(signedOut.body, /Signed in as/, path);
  }
  // A page naming who is signed in is never cached for anyone else.
  const res = await fetch(`${svc.url}/docs/api`, { headers: { cookie: jar.header() } });
  assert.equal(res.headers.get('cache-control'), 'private, no-store');
  assert.match(res.headers.get('vary') ?? '', /cookie/i);
});

test('a misspelt city gets "did you mean" with the whole address to try; a street not found in a covered city is headed so', async () => {
  const jar = await signUpOrIn(svc.url, 'header.typos@example.com');
  const city = await getPage(sites('11 Acorn St, Cambrige, MA'), jar);
  assert.equal(city.status, 200);
  assert.equal(h1(city.body), 'City not recognised');
  assert.match(city.body, /Did you mean Cambridge, MA\?/);
  assert.match(city.body, /<ul id="suggestions"><li><a href="\/sites\?address=11\+Acorn\+St%2C\+Cambridge%2C\+MA">11 Acorn St, Cambridge, MA<\/a>/);
  // The suggestion answers.
  const fixed = await getPage(sites('11 Acorn St, Cambridge, MA'), jar);
  assert.match(fixed.body, /97-120/);

  const street = await getPage(sites('11 Zzyzx St, Cambridge, MA'), jar);
  assert.equal(street.status, 200);
  assert.equal(h1(street.body), 'Street not found in Cambridge, MA');
  assert.doesNotMatch(street.body, /Address not covered/);
  assert.match(street.body, /<h2>Did you mean<\/h2>/);

  const notCovered = await getPage(sites('233 S Wacker Dr, Chicago, IL'), jar);
  assert.equal(h1(notCovered.body), 'Address not covered', 'a place siteline does not cover keeps its heading');
});
