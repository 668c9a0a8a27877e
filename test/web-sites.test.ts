// The home page and the snapshot page (/sites, the link getFeasibilitySnapshot puts in its _meta),
// over the real HTTP server with Cambridge (live) and Chicago (planned_not_live) data, signed in
// through the real forms; plus one run in headless Chromium with JavaScript off.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { chromium } from 'playwright-core';
import path from 'node:path';
import { ROOT, startTestServer, type TestServer } from './support/harness.ts';
import { CookieJar, TEST_PASSWORD, csrfFrom, getPage, postForm, signUpOrIn } from './support/auth-flow.ts';
import { STATUS_MEANINGS, UNKNOWN_VALUE_STATUSES, VALUE_STATUSES } from '../src/core/statuses.ts';
import { valueText } from '../src/web/site-page.ts';

const golden = JSON.parse(fs.readFileSync(path.join(ROOT, 'test/golden/cambridge-addresses.json'), 'utf8')) as {
  addresses: { address: string; parcelExternalId: string; zone: string }[];
};

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

const sitesUrl = (base: string, address: string, ref?: string) => `${base}/sites?${new URLSearchParams(ref ? { address, ref } : { address }).toString()}`;
const unescapeAttr = (s: string) =>
  s
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

/** Each envelope row of the page: member key, the value cell's text and the status shown. */
const DERIVED = new Set(['maxFloorAreaSqft', 'maxDwellingUnits', 'maxDwellingUnitsByDensity', 'maxFootprintSqft', 'buildableWidthFt', 'buildableDepthFt']);

function envelopeRows(body: string): { key: string; value: string; status: string }[] {
  const rows: { key: string; value: string; status: string }[] = [];
  const re = /<div class="std" id="env-(\w+)"><h3>[^<]*<\/h3>\s*<p><span class="value">([^<]*)<\/span> <span class="badge[^"]*" data-status="(\w+)"/g;
  for (let m = re.exec(body); m; m = re.exec(body)) rows.push({ key: m[1]!, value: m[2]!, status: m[3]! });
  return rows;
}

test('valueText: null or unknown-status values read "Unknown", no_limit_in_bylaw reads "No limit in the bylaw", never 0', () => {
  for (const status of UNKNOWN_VALUE_STATUSES) {
    assert.ok(STATUS_MEANINGS[status].unknown);
    assert.equal(valueText({ value: null, status, unit: 'ft' }), 'Unknown');
    // Even a (forbidden) 0 beside an unknown status is not shown as a number.
    assert.equal(valueText({ value: 0, status, unit: 'ft' }), 'Unknown');
    assert.equal(valueText({ value: null, status, unit: 'ft', statedNoLimit: 'S1' }), 'Unknown', 'an unknown status never reads as a no-limit');
  }
  for (const status of VALUE_STATUSES) if (status !== 'no_limit_in_bylaw') assert.equal(valueText({ value: null, status, unit: 'ft' }), 'Unknown');
  assert.equal(valueText({ value: null, status: 'no_limit_in_bylaw', unit: 'ratio' }), 'No limit in the bylaw');
  assert.equal(valueText({ value: null, status: 'unverified_default', unit: 'ratio', statedNoLimit: 'S1' }), 'No limit, per S1');
  assert.equal(valueText({ value: 45, status: 'cited', unit: 'ft' }), '45 ft');
  assert.equal(valueText({ value: 2.5, status: 'cited', unit: 'ratio' }), '2.5');
  assert.equal(valueText({ value: 12500, status: 'derived_from_cited', unit: 'sqft' }), '12,500 sq ft');
});

describe('web pages: home and /sites over real HTTP', () => {
  let svc: TestServer;
  before(async () => {
    svc = await startTestServer({ places: ['cambridge-ma', 'chicago-il'] });
  });
  after(async () => {
    await svc?.close();
  });

  test('home page: what siteline is, the address form (GET /sites), account links, the MCP endpoint and guide', async () => {
    const res = await getPage(`${svc.url}/`, new CookieJar());
    assert.equal(res.status, 200);
    assert.match(res.body, /<form method="get" action="\/sites"/);
    assert.match(res.body, /name="address"/);
    assert.match(res.body, /href="\/signin\?next=%2F"/);
    assert.match(res.body, /href="\/signup\?next=%2F"/);
    assert.match(res.body, /href="\/account"/);
    assert.match(res.body, /<code id="mcp-endpoint">http:\/\/localhost:\d+\/api\/mcp<\/code>/, 'the MCP endpoint URL ({base}/api/mcp)');
    assert.match(res.body, /href="\/docs\/mcp"/);
    assert.doesNotMatch(res.body, /<script/i);
  });

  test('signed out: /sites redirects to sign-in with a safe return, and signing up lands back on the snapshot', async () => {
    const target = sitesUrl(svc.url, golden.addresses[0]!.address, 'mcp-full');
    const jar = new CookieJar();
    const first = await getPage(target, jar);
    assert.equal(first.status, 303);
    const here = target.slice(svc.url.length);
    assert.equal(first.location, `/signin?next=${encodeURIComponent(here)}`);
    assert.doesNotMatch(first.body, /97-120/, 'nothing of the snapshot leaks before sign-in');

    // The sign-in page carries the return; its "Sign up" link keeps it too.
    const signin = await getPage(`${svc.url}${first.location}`, jar);
    assert.equal(signin.status, 200);
    const next = unescapeAttr(/name="next" value="([^"]*)"/.exec(signin.body)![1]!);
    assert.equal(next, here);
    const signupPage = await getPage(`${svc.url}/signup?next=${encodeURIComponent(next)}`, jar);
    const up = await postForm(`${svc.url}/signup`, jar, {
      csrf: csrfFrom(signupPage.body),
      email: 'returning.visitor@example.com',
      password: TEST_PASSWORD,
      next,
    });
    assert.equal(up.status, 303);
    assert.equal(up.location, here);
    const back = await getPage(`${svc.url}${up.location}`, jar);
    assert.equal(back.status, 200);
    assert.match(back.body, /id="lot-id">97-120</);
  });

  test('a Cambridge address renders its lot id, zone, statuses, envelope with citations/notes, uses and sources', async () => {
    const jar = await signUpOrIn(svc.url, 'sites.reader@example.com');
    for (const g of golden.addresses.slice(0, 3)) {
      const res = await getPage(sitesUrl(svc.url, g.address, 'mcp-zoning_lookup'), jar);
      assert.equal(res.status, 200, g.address);
      assert.match(res.body, new RegExp(`id="lot-id">${g.parcelExternalId}<`), `${g.address}: lot id`);
      assert.match(res.body, new RegExp(`id="primary-zone">${g.zone}<`), `${g.address}: zone`);
      // How the address matched, in words (the code stays in the snapshot's JSON, never on the page).
      assert.match(res.body, /found in the city address table, match confidence/);
      assert.doesNotMatch(res.body, /address_table/);
      assert.match(res.body, /id="match-confidence">1</);
      assert.match(res.body, /sites\.reader@example\.com/, 'signed-in header');
      assert.doesNotMatch(res.body, /mcp-zoning_lookup/, 'ref is attribution only, never echoed');
    }
    const acorn = await getPage(sitesUrl(svc.url, '11 Acorn St, Cambridge, MA'), jar);
    for (const status of ['unverified_default', 'not_extracted']) assert.match(acorn.body, new RegExp(`data-status="${status}"`));
    assert.match(acorn.body, /unknown: not extracted from the bylaw/, 'not_extracted reads as a readable badge');
    const rows = envelopeRows(acorn.body);
    assert.equal(rows.length, 21, 'every envelope member has a row');
    assert.deepEqual(
      rows.find((r) => r.key === 'maxHeightFt'),
      { key: 'maxHeightFt', value: '45 ft', status: 'unverified_default' },
    );
    assert.match(acorn.body, /<strong>Condition:<\/strong> residential developments/);
    assert.match(acorn.body, /id="warnings"/);
    assert.match(acorn.body, /Lot<\/h2>[\s\S]*Parcels FY2014, FY2014 \(2014-10-16\) \(ODC-PDDL-1\.0\)/);
    assert.match(acorn.body, /id="uses"[\s\S]*multifamily dwelling[\s\S]*as of right/);
    assert.match(
      acorn.body,
      /id="sources"[\s\S]*Public Domain Dedication and License[\s\S]*href="https:\/\/cambridgema\.gov\/CDD\/zoninganddevelopment\/Zoning\/Ordinance"/,
    );

    // A sure match opens with the lot; an unsure one (57 Inman St: interpolated, 0.5) with the doubt, before anything else.
    assert.doesNotMatch(acorn.body, /id="match-doubt"/);
    const inman = await getPage(sitesUrl(svc.url, '57 Inman St, Cambridge, MA'), jar);
    assert.match(inman.body, /id="match-confidence">0\.5</);
    assert.match(
      inman.body,
      /<section id="match-doubt"[^>]*role="alert"[\s\S]*We are not sure this is the lot you meant[\s\S]*located by its number along the street \(match confidence 0\.5, below 0\.8\)/,
    );
    assert.ok(inman.body.indexOf('id="match-doubt"') < inman.body.indexOf('id="address"'), 'the doubt comes first');

    // The notes' sources in full on the page (the snapshot carries their labels; the page inlines the catalogue).
    assert.match(acorn.body, /id="rule-sources"[\s\S]*id="src-S1"[\s\S]*href="https:\/\/cambridgema\.gov\/News\/detail/);

    // A lot in a special district with an overlay: every value on the district's own schedule.
    const albany = await getPage(sitesUrl(svc.url, '224 Albany St, Cambridge, MA'), jar);
    assert.match(albany.body, /id="primary-zone">SD-8</);
    assert.match(albany.body, /id="overlays"[\s\S]*Massachusetts Institute of Technology/);
    assert.ok(envelopeRows(albany.body).every((r) => r.status === 'site_specific_schedule' && r.value === (DERIVED.has(r.key) ? 'Not calculated' : 'Unknown')));
  });

  test("the place's source catalogue, public, at the URL a snapshot names; cached for good by its version", async () => {
    const unversioned = await fetch(`${svc.url}/places/cambridge-ma/sources.json`);
    assert.equal(unversioned.status, 200);
    assert.equal(unversioned.headers.get('cache-control'), 'no-cache');
    const doc = (await unversioned.json()) as {
      place: string;
      version: string;
      sources: Record<string, { label: string; name: string; vintage: string; licence?: string; url?: string }>;
      attribution: string[];
    };
    assert.equal(doc.place, 'cambridge-ma');
    assert.equal(doc.sources['parcels']!.licence, 'ODC-PDDL-1.0');
    assert.match(doc.sources['S1']!.url ?? '', /^https:\/\/cambridgema\.gov\//);
    assert.deepEqual(doc.attribution, [], 'a public-domain dedication asks for no statement');
    const versioned = await fetch(`${svc.url}/places/cambridge-ma/sources.json?v=${doc.version}`);
    assert.match(versioned.headers.get('cache-control') ?? '', /immutable/);
    assert.deepEqual(await versioned.json(), doc);
    const chicago = (await (await fetch(`${svc.url}/places/chicago-il/sources.json`)).json()) as typeof doc;
    assert.match(chicago.attribution[0] ?? '', /MIT/, 'an MIT attribution is a statement every answer carries');
    assert.equal((await fetch(`${svc.url}/places/nowhere-xx/sources.json`)).status, 404);
    assert.equal((await fetch(`${svc.url}/places/..%2Fetc/sources.json`)).status, 404);
  });

  test('an unknown status is never rendered as 0 or "no limit"', async () => {
    const jar = await signUpOrIn(svc.url, 'sites.unknowns@example.com');
    let unknownRows = 0;
    for (const g of golden.addresses.slice(0, 8)) {
      const res = await getPage(sitesUrl(svc.url, g.address), jar);
      assert.equal(res.status, 200);
      const rows = envelopeRows(res.body);
      assert.equal(rows.length, 21);
      for (const r of rows) {
        const unknown = STATUS_MEANINGS[r.status as keyof typeof STATUS_MEANINGS].unknown;
        if (unknown) {
          unknownRows++;
          // A value worked out from others reads "Not calculated" (and says why); any other reads "Unknown".
          assert.equal(r.value, DERIVED.has(r.key) ? 'Not calculated' : 'Unknown', `${g.address} ${r.key} (${r.status}): not 0, not "no limit"`);
        }
        // Only the bylaw's own no-limit, or a source's no-limit on an unverified value naming that source.
        if (r.status === 'unverified_default') assert.match(r.value, /^(?!.*no limit)|^No limit, per S\d+$/i, `${g.address} ${r.key}`);
        else if (r.status !== 'no_limit_in_bylaw') assert.doesNotMatch(r.value, /no limit/i, `${g.address} ${r.key}`);
      }
    }
    assert.ok(unknownRows > 0, 'the sample has unknown values to check');
  });

  test('a not-covered address shows the coverage status and message, and the form again', async () => {
    const jar = await signUpOrIn(svc.url, 'sites.chicago@example.com');
    const res = await getPage(sitesUrl(svc.url, '233 S Wacker Dr, Chicago, IL', 'mcp-full'), jar);
    assert.equal(res.status, 200);
    assert.match(res.body, /id="coverage-status"><span class="badge[^"]*" data-status="planned_not_live"[^>]*>planned, not live</);
    assert.match(res.body, /Chicago is planned but not live/);
    // A place with rules but no answer links to its rules page.
    assert.match(res.body, /id="rules-link"[\s\S]*href="\/coverage\/chicago-il"/);
    assert.match(res.body, /id="address-form"[\s\S]*value="233 S Wacker Dr, Chicago, IL"/);
    assert.doesNotMatch(res.body, /id="lot-id"/);

    const nowhere = await getPage(sitesUrl(svc.url, '12 Nowhere Rd, Cambridge, MA'), jar);
    assert.equal(nowhere.status, 200);
    // The status is a badge in words; its code is an attribute, never text on the page (issue 49).
    assert.match(nowhere.body, /data-status="geocode_failed"[^>]*>address not matched</);
    assert.doesNotMatch(nowhere.body, />geocode_failed</);
  });

  test('bad input: the form again with the message, HTTP 400', async () => {
    const jar = await signUpOrIn(svc.url, 'sites.badinput@example.com');
    const res = await getPage(sitesUrl(svc.url, 'PO Box 12, Cambridge, MA'), jar);
    assert.equal(res.status, 400);
    assert.match(res.body, /id="address-error">A post office box is not a site/);
    assert.match(res.body, /id="address-form"[\s\S]*value="PO Box 12, Cambridge, MA"/);
    const empty = await getPage(sitesUrl(svc.url, '   '), jar);
    assert.equal(empty.status, 400);
    assert.match(empty.body, /The address is empty\./);
    // No address at all: just the form.
    const bare = await getPage(`${svc.url}/sites`, jar);
    assert.equal(bare.status, 200);
    assert.match(bare.body, /id="address-form"/);
  });

  test('HTML in the address or ref is escaped everywhere', async () => {
    const jar = await signUpOrIn(svc.url, 'sites.injection@example.com');
    const evil = [
      '"><script>alert(1)</script> 11 Acorn St, Cambridge, MA',
      '11 Acorn St <img src=x onerror=alert(1)>, Cambridge, MA',
      '<b>PO Box 1</b>, Cambridge, MA',
    ];
    for (const address of evil) {
      const res = await getPage(sitesUrl(svc.url, address, '"><script>alert(2)</script>'), jar);
      assert.ok([200, 400].includes(res.status), `${address}: ${res.status}`);
      assert.doesNotMatch(res.body, /<script/i, address);
      assert.doesNotMatch(res.body, /<img/i, address);
      assert.doesNotMatch(res.body, /<b>/, address);
      assert.match(res.body, /&lt;(script|img|b)/, `${address}: echoed, escaped`);
    }
    // Signed out, the return target is encoded into the redirect, and escaped on the sign-in page.
    const out = await getPage(sitesUrl(svc.url, '"><script>alert(3)</script>', '"><b>x'), new CookieJar());
    assert.equal(out.status, 303);
    const signin = await getPage(`${svc.url}${out.location}`, new CookieJar());
    assert.doesNotMatch(signin.body, /<script|<b>/);
  });

  test('headless Chromium, JavaScript off: sign in, submit the home page form, read the snapshot', {
    skip: !fs.existsSync(CHROMIUM) && `no Chromium at ${CHROMIUM}`,
  }, async () => {
    await signUpOrIn(svc.url, 'sites.browser@example.com');
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS, headless: true });
    try {
      const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 1200, height: 900 } });
      const page = await context.newPage();
      await page.goto(`${svc.url}/signin?next=%2F`);
      await page.fill('#email', 'sites.browser@example.com');
      await page.fill('#password', TEST_PASSWORD);
      await Promise.all([page.waitForURL(`${svc.url}/`), page.click('button[type=submit]')]);
      assert.match((await page.textContent('main')) ?? '', /Signed in as sites\.browser@example\.com/);

      await page.fill('#address', '11 Acorn St, Cambridge, MA');
      await Promise.all([page.waitForURL(/\/sites\?address=/), page.click('#address-form button[type=submit]')]);
      const text = (await page.textContent('main')) ?? '';
      assert.match(text, /11 Acorn St, Cambridge, MA/);
      assert.match(text, /97-120/);
      assert.match(text, /C-1/);
      assert.match(text, /Maximum height\s*45 ft\s*indicative, unverified/);
      assert.match(text, /Minimum lot depth\s*Unknown\s*unknown: not extracted from the bylaw/);
      assert.equal(await page.textContent('#env-minLotDepthFt .value'), 'Unknown');
      await page.screenshot({ path: '/tmp/sites-page.png', fullPage: true });
      await context.close();
    } finally {
      await browser.close();
    }
  });
});
