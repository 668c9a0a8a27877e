// Citations on the snapshot page as footnotes: a small synthetic city (the bench's generator; its RS-3
// values cite the Somerville ordinance it holds) served by the real HTTP server; a cited value carries a
// numbered marker that links to a footnote quoting the bylaw's words with the document, section and
// edition, and a link to the service's page that shows the quote in its section.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTestServer, type TestServer } from './support/harness.ts';
import { getPage, signUpOrIn } from './support/auth-flow.ts';
import { loadSyntheticCity, sampleSyntheticAddresses, writeSyntheticPlacesDir } from '../bench/synthetic-city.ts';

const PARCELS = 400;
let svc: TestServer;
let placesDir: string;
before(async () => {
  placesDir = writeSyntheticPlacesDir(fs.mkdtempSync(path.join(os.tmpdir(), 'siteline-web-cite-')));
  svc = await startTestServer({ config: { placesDir } });
  await loadSyntheticCity(svc.testDb.db, PARCELS);
});
after(async () => {
  await svc?.close();
  fs.rmSync(placesDir, { recursive: true, force: true });
});

test('a cited value has a footnote marker; the footnote quotes the words, names document, section and edition, and links to them in the held text', async () => {
  const jar = await signUpOrIn(svc.url, 'citations.reader@example.com');
  let checked = 0;
  for (const address of sampleSyntheticAddresses(PARCELS, 10)) {
    const res = await getPage(`${svc.url}/sites?${new URLSearchParams({ address })}`, jar);
    assert.equal(res.status, 200, address);
    const cited =
      /<div class="std" id="env-(\w+)"><h3>[^<]*<\/h3>\s*<p><span class="value">[^<]*<\/span> <span class="badge badge-authoritative" data-status="cited"[^>]*>cited from the bylaw<\/span><sup><a href="#cite-(\d+)"/.exec(
        res.body,
      );
    if (!cited) continue;
    const n = cited[2]!;
    const note = new RegExp(
      `<li id="cite-${n}"><q class="quote">([^<]+)</q> Somerville Zoning Ordinance, § 3\\.1\\.8 \\(<a href="(https://[^"]+)" rel="noopener noreferrer">edition ([^<]+)</a>\\); <a href="(/sources/[^"]+)">check it in the text siteline holds</a>`,
    ).exec(res.body);
    assert.ok(note, `${address}: footnote ${n} for ${cited[1]}`);
    const check = await getPage(`${svc.url}${note[4]!.replace(/&amp;/g, '&')}`, jar);
    assert.equal(check.status, 200);
    assert.match(check.body, /<mark id="quote">/, 'the linked page finds the quote in its section');
    // Each footnote is numbered once, however many values cite it.
    assert.equal(res.body.match(new RegExp(`<li id="cite-${n}"`, 'g'))!.length, 1);
    checked++;
  }
  assert.ok(checked > 0, 'the sample has cited values');
});
