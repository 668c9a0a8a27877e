// The accuracy audit of one place (issue 15 item 8): every distinct address of the place's address
// table goes through the geocoder exactly as the snapshot calls it (parseAddress -> geocodeInPlace),
// and the lot it answers is scored against two references that do not come from the geocoder: the
// source's own address -> lot join (the address row's lot id, when that lot is in the parcel layer)
// and the point-in-lot test (the address point inside the answered lot's polygon). Reported: rates by
// match type, a calibration table (share right per confidence band), the addresses the references
// cannot check (the weak band), the worst disagreements and the data vintages. Stored in place_audits
// and shown on /coverage; rerun after every import that changes the place (docs/audit.md).
//
// The pipeline, a step per file: the place's addresses and their answers (audit-addresses.ts), the
// verdicts and tables (audit-tables.ts), a sample through the whole snapshot (below), the report's
// shape and text (audit-report.ts); then stored, and run after imports (below).
import type { AppContext } from '../context.ts';
import { giveWayToRequests } from './background-pace.ts';
import type { Queryable } from '../db/database.ts';
import { SitelineError } from '../core/errors.ts';
import { forgetPlaceCalibration } from '../geocoder/calibration.ts';
import { getPlaceBySlug, type PlaceRecord } from '../places/catalogue.ts';
import { canonicalJson, digestOf } from '../places/manifest.ts';
import { addressGroups, answerAddresses, lotsWithSeveralAddresses, placeLots, sampleOf } from './audit-addresses.ts';
import { byMatchTypeTable, calibrationTable, heldOutTable, sourceLotsAgainstPoints, verdictOf, weakBandOf, worstDisagreements } from './audit-tables.ts';
import { AUDIT_VERSION, SNAPSHOT_CROSS_CHECK, WORST_LISTED, auditSummaryLine, rate, share, type AuditedAddress, type PlaceAudit } from './audit-report.ts';

export interface AuditOptions {
  /** Audit at most this many addresses, spread evenly over the sorted list (tests); default: all. */
  sample?: number;
  /** Cross-check this many addresses through the whole snapshot (default SNAPSHOT_CROSS_CHECK; 0: none). */
  snapshotCheck?: number;
  onProgress?: (msg: string) => void;
  /** Let other work run (setImmediate) after this many addresses: for an audit running beside a live server. */
  yieldEvery?: number;
  /** Awaited before each address (and each cross-checked snapshot): a background audit gives way to requests (background-pace.ts). */
  pause?: () => Promise<void>;
}

/** Runs the audit of a place on the database it is imported in. Throws not_found for an unknown or unimported place. */
export async function auditPlace(ctx: AppContext, slug: string, opts: AuditOptions = {}): Promise<PlaceAudit> {
  const started = Date.now();
  const { place, imp } = await importedPlace(ctx, slug);
  const placeId = place.geoDivisionId;

  const { rows, groups: allGroups, pointsIgnored, outsideBoundary } = await addressGroups(ctx.db, placeId, place.bbox);
  const groups = sampleOf(allGroups, opts.sample);
  const lots = await placeLots(ctx.db, placeId);
  // Lots with several addresses, over the whole table (a sample would undercount them).
  const { results, heldOut, heldOutOfBoth } = await answerAddresses(ctx, place, groups, lots, opts, lotsWithSeveralAddresses(allGroups));

  const answered = results.filter((r) => r.answeredLot);
  const verdicts = new Map(results.map((r) => [r, verdictOf(r)] as const));
  const checked = answered.filter((r) => verdicts.get(r) !== 'unverifiable');
  const right = checked.filter((r) => verdicts.get(r) === 'right');
  const wrong = checked.filter((r) => verdicts.get(r) === 'wrong');
  const srcPoint = await sourceLotsAgainstPoints(ctx.db, placeId, groups, results, lots, opts.pause);
  const byMatchType = byMatchTypeTable(results, verdicts);
  const calibration = calibrationTable(answered, verdicts);
  const heldRows = heldOutTable(heldOut, heldOutOfBoth);
  const weakBand = weakBandOf(results);
  const worst = await worstDisagreements(ctx.db, placeId, groups, results, wrong, lots.inside);
  const missedAll = results.filter((r) => r.sourceJoin === 'lot_in_layer' && !r.answeredLot);
  const snapshotCrossCheck = await crossCheckThroughSnapshot(ctx, place, results, opts);

  const body = {
    scope: {
      addressRows: rows,
      distinctAddresses: allGroups.length,
      audited: groups.length,
      sampled: groups.length < allGroups.length,
      withPoint: groups.filter((g) => g.point).length,
      pointsOutsidePlace: pointsIgnored,
    },
    sourceJoin: {
      lot_in_layer: results.filter((r) => r.sourceJoin === 'lot_in_layer').length,
      lot_missing_from_layer: weakBand.lotMissingFromLayer,
      no_lot_in_source: weakBand.noLotInSource,
    },
    headline: {
      answered: answered.length,
      failed: results.length - answered.length,
      checked: checked.length,
      right: right.length,
      wrong: wrong.length,
      unverifiable: answered.length - checked.length,
      shareRight: share(right.length, checked.length),
    },
    agreement: {
      sourceJoin: rate(
        answered.filter((r) => r.sourceJoin === 'lot_in_layer' && r.sourceLots.includes(r.answeredLot!)).length,
        answered.filter((r) => r.sourceJoin === 'lot_in_layer').length,
      ),
      pointInLot: rate(answered.filter((r) => r.pointInLot === true).length, answered.filter((r) => r.pointInLot !== null).length),
      sourceLotContainsPoint: rate(srcPoint.agree, srcPoint.checked),
    },
    idVsPoint: { checked: srcPoint.checked, disagree: srcPoint.checked - srcPoint.agree, examples: srcPoint.examples },
    outsideBoundary,
    byMatchType,
    calibration,
    heldOut: {
      heldOut: heldOut.length,
      failed: heldOut.filter((h) => h === null).length,
      heldOutOfBoth: heldOutOfBoth.length,
      failedOfBoth: heldOutOfBoth.filter((h) => h === null).length,
      rows: heldRows,
    },
    weakBand,
    worstDisagreements: worst,
    missed: { count: missedAll.length, examples: missedAll.slice(0, WORST_LISTED) },
    snapshotCrossCheck,
    vintages: vintagesOf(place),
  };
  return {
    auditVersion: AUDIT_VERSION,
    slug,
    placeId,
    name: `${place.name}, ${place.region}`,
    generatedAt: ctx.clock.now().toISOString(),
    durationMs: Date.now() - started,
    sourceDigest: imp.digest,
    importedAt: new Date(imp.imported_at).toISOString(),
    resultDigest: digestOf(String(AUDIT_VERSION), canonicalJson(body)),
    method:
      'Every distinct full address of the address table, written "<address>, <place>, <region>", through parseAddress and geocodeInPlace (the calls getFeasibilitySnapshot makes). ' +
      "An answer is right when its lot is one of the source's own lots for that address (when that lot is in the parcel layer), else when the address point lies in the answered lot; otherwise it cannot be checked. " +
      'Confidence bands are [min, max); the top band includes 1.',
    ...body,
    heldOut: { generatedAt: ctx.clock.now().toISOString(), ...body.heldOut },
  };
}

/** The place and the import the audit describes; not_found for an unknown or unimported place. */
async function importedPlace(ctx: AppContext, slug: string): Promise<{ place: PlaceRecord; imp: { digest: string | null; imported_at: Date | string } }> {
  const place = await getPlaceBySlug(ctx, slug);
  if (!place) throw new SitelineError('not_found', `No place "${slug}" in the catalogue.`);
  const [imp] = await ctx.db.query<{ digest: string | null; imported_at: Date | string | null }>(
    `SELECT import_report->>'sourceDigest' AS digest, imported_at FROM places WHERE place_id = $1`,
    [place.geoDivisionId],
  );
  if (!imp?.imported_at) throw new SitelineError('not_found', `${slug} is not imported in this database: run \`siteline data import ${slug}\` first.`);
  return { place, imp: { digest: imp.digest, imported_at: imp.imported_at } };
}

/** The same addresses through the whole snapshot (resolution of the place, the lot row): the lot it answers is the one audited. */
async function crossCheckThroughSnapshot(
  ctx: AppContext,
  place: PlaceRecord,
  results: AuditedAddress[],
  opts: AuditOptions,
): Promise<PlaceAudit['snapshotCrossCheck']> {
  const nCheck = opts.snapshotCheck ?? SNAPSHOT_CROSS_CHECK;
  if (!(nCheck > 0 && place.status === 'live' && results.length > 0)) return null;
  const { getFeasibilitySnapshot } = await import('../snapshot/snapshot.ts');
  const picks = sampleOf(results, nCheck);
  const differences: NonNullable<PlaceAudit['snapshotCrossCheck']>['differences'] = [];
  for (const r of picks) {
    if (opts.pause) await opts.pause();
    let lot: string | null = null;
    let error: string | undefined;
    try {
      const s = await getFeasibilitySnapshot(ctx, `${r.address}, ${place.name}, ${place.region}`);
      lot = s.answered ? (s.lot?.parcelExternalId ?? null) : null;
    } catch (err) {
      error = (err as Error).message;
    }
    if (lot !== r.answeredLot) differences.push({ address: r.address, audited: r.answeredLot, snapshot: lot, ...(error ? { error } : {}) });
  }
  return { checked: picks.length, sameLot: picks.length - differences.length, differences: differences.slice(0, 10) };
}

function vintagesOf(place: PlaceRecord): PlaceAudit['vintages'] {
  return place.layers.map((l) => ({ layer: l.layer, name: l.name, vintage: l.vintage }));
}

/** Stores the audit as the place's latest (one row per place). */
async function savePlaceAudit(ctx: Pick<AppContext, 'db' | 'caches'>, a: PlaceAudit): Promise<void> {
  await ctx.db.query(
    `INSERT INTO place_audits (place_id, source_digest, generated_at, report) VALUES ($1, $2, $3, $4::json)
     ON CONFLICT (place_id) DO UPDATE SET source_digest = EXCLUDED.source_digest, generated_at = EXCLUDED.generated_at, report = EXCLUDED.report`,
    [a.placeId, a.sourceDigest ?? '', a.generatedAt, JSON.stringify(a)],
  );
  forgetPlaceCalibration(ctx, a.placeId);
}

/** The latest stored audit of every place, by place id. */
export async function loadPlaceAudits(q: Queryable): Promise<Map<string, PlaceAudit>> {
  const rows = await q.query<{ place_id: string; report: PlaceAudit | string }>('SELECT place_id, report FROM place_audits');
  return new Map(rows.map((r) => [r.place_id, typeof r.report === 'string' ? (JSON.parse(r.report) as PlaceAudit) : r.report]));
}

/** Audits and stores; a place without an address table gets an audit that says so. */
export async function auditAndSave(ctx: AppContext, slug: string, opts: AuditOptions = {}): Promise<PlaceAudit> {
  const a = await auditPlace(ctx, slug, opts);
  await savePlaceAudit(ctx, a);
  return a;
}

/**
 * The import's hook: audit the place just imported (or, after an unchanged import, when no audit of
 * these sources is stored). Failures are logged, never fail the import. `background` returns at once.
 */
export async function auditAfterImport(
  ctx: AppContext,
  slug: string,
  placeId: string,
  sourceDigest: string,
  mode: 'await' | 'background' | 'off',
  onProgress?: (msg: string) => void,
  always = false,
): Promise<void> {
  if (mode === 'off') return;
  const run = async () => {
    if (!always) {
      const [have] = await ctx.db.query<{ source_digest: string; v: string | null }>(
        `SELECT source_digest, report->>'auditVersion' AS v FROM place_audits WHERE place_id = $1`,
        [placeId],
      );
      if (have && have.source_digest === sourceDigest && Number(have.v) === AUDIT_VERSION) return;
    }
    // In the background the audit gives way to requests now and then (one PGlite connection is shared).
    const a = await auditAndSave(ctx, slug, mode === 'background' ? { onProgress, pause: giveWayToRequests(ctx) } : { onProgress });
    onProgress?.(`${slug}: audit: ${auditSummaryLine(a)} (${(a.durationMs / 1000).toFixed(1)} s)`);
  };
  const guarded = run().catch((err: unknown) => ctx.logger.warn({ place: slug, err: (err as Error).message }, 'place audit failed; the import stands'));
  if (mode === 'await') await guarded;
}

/**
 * Audits the named places one after the other without being awaited (start-up): each gives way to
 * requests every 100 addresses; a place whose stored audit already describes its import is skipped.
 * Failures (the database closed at shutdown) are logged, never thrown.
 */
export async function auditInBackground(ctx: AppContext, slugs: string[], onProgress?: (msg: string) => void): Promise<void> {
  try {
    for (const slug of slugs) {
      const [row] = await ctx.db.query<{ digest: string | null; audited: string | null; v: string | null }>(
        `SELECT p.import_report->>'sourceDigest' AS digest, a.source_digest AS audited, a.report->>'auditVersion' AS v
           FROM places p LEFT JOIN place_audits a ON a.place_id = p.place_id WHERE p.slug = $1 AND p.imported_at IS NOT NULL`,
        [slug],
      );
      if (!row || (row.audited === row.digest && Number(row.v) === AUDIT_VERSION)) continue;
      const a = await auditAndSave(ctx, slug, { onProgress, pause: giveWayToRequests(ctx) });
      onProgress?.(`${slug}: audit: ${auditSummaryLine(a)} (${(a.durationMs / 1000).toFixed(1)} s)`);
    }
  } catch (err) {
    ctx.logger.warn({ places: slugs, err: (err as Error).message }, 'place audit stopped; the imports stand (`siteline data audit <place>` makes one)');
  }
}
