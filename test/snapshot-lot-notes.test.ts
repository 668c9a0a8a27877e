// Issue 27 items 5 and 8 on real Cambridge data, through real entry points: a lot that faces two streets
// but is not a corner lot says why (with the rule's threshold) in the snapshot's lot section, in the MCP
// tool's text (official SDK client over the real HTTP server) and in the CLI's text; a true corner lot
// says nothing of the kind; a cul-de-sac lot says which rule measured its frontage and depth; and an
// assessor's listing on a lot far from the named street is answered below 0.5 with the distance, unless
// the place's held-out audit measured that band.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Client } from '@modelcontextprotocol/client';
import { createPlacesEnv, startTestServer, type TestServer } from './support/harness.ts';
import { connectClient } from './mcp-support.ts';
import { getUserToken } from './support/auth-flow.ts';
import { runSiteline } from './support/cli.ts';
import { ManualClock } from '../src/clock.ts';
import { getFeasibilitySnapshot } from '../src/snapshot/snapshot.ts';
import { forgetPlaceCalibration, MIN_CALIBRATION_SAMPLE } from '../src/geocoder/calibration.ts';
import { CORNER_ADJACENT_M } from '../src/core/geo/lot-facts.ts';
import { FT_PER_M } from '../src/core/geo/primitives.ts';
import type { Snapshot } from '../src/core/snapshot-types.ts';

let svc: TestServer;
let client: Client;
let placesEnv: { env: Record<string, string>; close(): Promise<void> };

before(async () => {
  svc = await startTestServer({ places: ['cambridge-ma'], clock: new ManualClock(Date.now()), analysisWorkers: { concurrency: 0 } });
  client = await connectClient(svc.url, 'modern', await getUserToken(svc.url, 'lot-notes@example.com'));
  placesEnv = await createPlacesEnv(['cambridge-ma']);
});
after(async () => {
  await client?.close();
  await svc?.close();
  await placesEnv?.close();
});

/** The MCP tool's answer: its text blocks (a summary line, then the answer as JSON) and the structured content. */
async function viaMcp(address: string): Promise<{ text: string; snapshot: Snapshot }> {
  const r = (await client.callTool({ name: 'getFeasibilitySnapshot', arguments: { address, source: 'full' } })) as {
    isError?: boolean;
    structuredContent?: Snapshot;
    content: { type: string; text: string }[];
  };
  assert.ok(!r.isError && r.structuredContent, `${address}: ${r.content.map((c) => c.text).join(' | ')}`);
  const text = r.content.map((c) => c.text).join('\n');
  assert.deepEqual(JSON.parse(r.content.at(-1)!.text), r.structuredContent, 'the JSON text block is the structured content');
  return { text, snapshot: r.structuredContent };
}

async function cliText(address: string): Promise<string> {
  const r = await runSiteline(['check', '--local', address], placesEnv.env);
  assert.equal(r.code, 0, r.stderr);
  return r.stdout;
}

async function storedFacts(lot: string): Promise<Record<string, any>> {
  const [row] = await svc.ctx.db.query<{ facts: unknown }>(`SELECT facts FROM parcels WHERE parcel_ext_id = $1`, [lot]);
  assert.ok(row, lot);
  return (typeof row.facts === 'string' ? JSON.parse(row.facts) : row.facts) as Record<string, any>;
}

const NOT_CORNER =
  /^Faces Bedford St and Porter St, but is not a corner lot: its two street faces come no closer than (\d+) ft \(a corner lot's must meet, within (\d+) ft; docs\/lot-metrics\.md\)\.$/;

test('a lot facing two streets whose faces do not meet (35 Porter St, lot 36-64) says why it is not a corner lot, on the snapshot, the MCP text and the CLI text', async () => {
  const { text, snapshot } = await viaMcp('35 Porter St, Cambridge, MA');
  const lot = snapshot.lot!;
  assert.equal(lot.parcelExternalId, '36-64');
  assert.equal(lot.cornerLot, false);
  const m = NOT_CORNER.exec(lot.cornerLotNote ?? '');
  assert.ok(m, `note: ${lot.cornerLotNote}`);
  // the threshold is the rule's own (CORNER_ADJACENT_M), and the gap is the one the import measured, beyond it
  assert.equal(Number(m[2]), Math.round(CORNER_ADJACENT_M * FT_PER_M));
  const facts = await storedFacts('36-64');
  assert.equal(facts['cornerLot'], false);
  assert.equal(facts['notCorner']?.reason, 'fronts_apart', JSON.stringify(facts));
  assert.deepEqual([...facts['notCorner'].streets].sort(), ['BEDFORD ST', 'PORTER ST']);
  assert.ok(facts['notCorner'].turnDeg >= facts['notCorner'].minTurnDeg, 'the streets turn enough: only the gap keeps it from being a corner');
  assert.equal(Number(m[1]), Math.round(facts['notCorner'].gapM * FT_PER_M));
  assert.ok(Number(m[1]) > Number(m[2]));
  assert.ok(text.includes(lot.cornerLotNote!), 'the MCP text carries the note');
  // The domain call every surface adapts gives the same note.
  assert.equal((await getFeasibilitySnapshot(svc.ctx, '35 Porter St, Cambridge, MA')).lot!.cornerLotNote, lot.cornerLotNote);
  // The CLI's text says it under the lot.
  const cli = await cliText('35 Porter St, Cambridge, MA');
  assert.match(cli, /Lot 36-64 [\s\S]*\n {2}note: Faces Bedford St and Porter St, but is not a corner lot: its two street faces come no closer than \d+ ft/);
});

test('a true corner lot (224 River St, at Rockwell St) and a lot on one street carry no such note', async () => {
  const corner = (await viaMcp('224 River St, Cambridge, MA')).snapshot.lot!;
  assert.equal(corner.parcelExternalId, '127-123');
  assert.equal(corner.cornerLot, true);
  assert.equal(corner.cornerLotNote, undefined);
  assert.equal((await storedFacts('127-123'))['notCorner'], undefined);
  const cli = await cliText('224 River St, Cambridge, MA');
  assert.match(cli, /, corner lot\n/);
  assert.doesNotMatch(cli, /not a corner lot/);
  const plain = (await viaMcp('11 Acorn St, Cambridge, MA')).snapshot.lot!;
  assert.equal(plain.cornerLot, false);
  assert.equal(plain.cornerLotNote, undefined);
  assert.equal(plain.frontageFt.note, undefined);
});

test("a cul-de-sac lot (3 Potter Pk) says its frontage runs along the bulb's arc and which direction its depth is taken across", async () => {
  const { text, snapshot } = await viaMcp('3 Potter Pk, Cambridge, MA');
  const lot = snapshot.lot!;
  const front = (await storedFacts(lot.parcelExternalId))['frontByStreet']['POTTER PARK'];
  assert.ok(front?.bulbM > 0 && front.bulbM < front.frontageM, JSON.stringify(front));
  assert.equal(lot.frontageFt.value, Math.round(front.frontageM * FT_PER_M * 10) / 10);
  assert.equal(
    lot.frontageFt.note,
    `Measured along the lot line; ${Math.round(front.bulbM * FT_PER_M)} ft of it curves around the end of Potter Park (a cul-de-sac's bulb) and is measured along the arc, not the chord (docs/lot-metrics.md).`,
  );
  assert.match(
    lot.depthFt.note ?? '',
    /^The lot's deepest extent across the direction of its front: the street's direction along it, weighted by length with the bulb's tangent around the end of Potter Park/,
  );
  assert.ok(text.includes(lot.frontageFt.note!));
});

test('"1 Monsignor Obrien Hwy": the assessor lists it on parkland far from the road, answered below 0.5 with the distance; a measured assessor_far band is said instead', async () => {
  const address = '1 Monsignor Obrien Hwy, Cambridge, MA';
  const { text, snapshot } = await viaMcp(address);
  const a = snapshot.address!;
  assert.equal(a.matchType, 'assessor_table');
  assert.equal(snapshot.lot!.parcelExternalId, '1A-62');
  assert.ok(a.confidence < 0.5, String(a.confidence));
  const far = a.warnings.find((w) => /does not front/.test(w));
  assert.match(
    far ?? '',
    /^Lot 1A-62 does not front Msgr Obrien Hwy: it is about 1,040 ft from the street's centreline\. The assessor's table lists the address on it .*confidence at most 0\.45/,
  );
  assert.ok(text.includes(far!), 'the MCP text carries the reason');

  // With a held-out audit stored, the band is looked up on its own: too few answers keep the cap, said as such ...
  const [place] = await svc.ctx.db.query<{ place_id: string }>(`SELECT place_id FROM places WHERE slug = 'cambridge-ma'`);
  const store = async (answered: number, right: number) => {
    const row = { matchType: 'assessor_table', band: 'assessor_far', min: 0, max: 1, answered, right, shareRight: right / answered, meanConfidence: 0.45 };
    const report = { placeId: place!.place_id, heldOut: { generatedAt: '2026-11-01T00:00:00.000Z', heldOut: 1000, failed: 0, rows: [row] } };
    await svc.ctx.db.query(
      `INSERT INTO place_audits (place_id, source_digest, generated_at, report) VALUES ($1, '', now(), $2::json)
       ON CONFLICT (place_id) DO UPDATE SET report = EXCLUDED.report`,
      [place!.place_id, JSON.stringify(report)],
    );
    forgetPlaceCalibration(svc.ctx, place!.place_id);
  };
  try {
    await store(MIN_CALIBRATION_SAMPLE - 1, MIN_CALIBRATION_SAMPLE - 1);
    const few = (await getFeasibilitySnapshot(svc.ctx, address)).address!;
    assert.equal(few.confidence, 0.45);
    assert.ok(
      few.warnings.some(
        (w) =>
          w ===
          `Confidence 0.45 is the cap for an assessor's listing on a lot that does not front the named street: this place's audit (2026-11-01) held out too few such answers (${MIN_CALIBRATION_SAMPLE - 1}, fewer than ${MIN_CALIBRATION_SAMPLE}) to measure them.`,
      ),
      few.warnings.join(' | '),
    );
    // ... a measured band above the cap does not raise it (the held-out addresses are not the ones the band
    // answers in use), and says so; one below the cap lowers it.
    await store(40, 34);
    const measured = (await getFeasibilitySnapshot(svc.ctx, address)).address!;
    assert.equal(measured.confidence, 0.45);
    assert.ok(
      measured.warnings.some((w) =>
        /^Confidence 0\.45 is the cap for an assessor's listing on a lot that does not front the named street\. This place's audit \(2026-11-01\) found such listings right for 34 of 40 addresses held out of the address table, but those are addresses the table gives a lot/.test(
          w,
        ),
      ),
      measured.warnings.join(' | '),
    );
    await store(40, 12);
    const lower = (await getFeasibilitySnapshot(svc.ctx, address)).address!;
    assert.equal(lower.confidence, 0.3);
    assert.ok(
      lower.warnings.some((w) =>
        /^Confidence 0\.3 is the share of right lots this place's audit \(2026-11-01\) measured .* \(12 of 40 addresses held out of the address table\), below the band's cap of 0\.45\./.test(
          w,
        ),
      ),
      lower.warnings.join(' | '),
    );
    // An assessor's answer on a lot that fronts its street does not use that band.
    const near = (await getFeasibilitySnapshot(svc.ctx, '9-4 Bellis Cir, Cambridge, MA')).address!;
    assert.equal(near.matchType, 'assessor_table');
    assert.ok(!near.warnings.some((w) => /do not front the named street|does not front/.test(w)), near.warnings.join(' | '));
  } finally {
    await svc.ctx.db.query(`DELETE FROM place_audits WHERE place_id = $1`, [place!.place_id]);
    forgetPlaceCalibration(svc.ctx, place!.place_id);
  }
});
