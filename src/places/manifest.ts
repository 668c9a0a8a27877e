// A place is declared by places/<slug>/manifest.json: identity, coverage status, sources with their
// checksums, licences and field mappings, and the rules file. Adding a city is a manifest plus a rules
// file, not code. This module parses and checks manifests; the importer and the catalogue read them.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { SitelineError } from '../core/errors.ts';

/** The repository's own places/ folder. Readers take the folder to read (the context's config.placesDir: SITELINE_PLACES_DIR, else this). */
export const PLACES_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../places');

/** Defaults for the per-source import thresholds (docs/data.md, "Import thresholds"). */
export const DEFAULT_MAX_REJECTED_SHARE = 0.1;
const DEFAULT_ROW_TOLERANCE = 0.02;
/** The share of a layer's recorded rows or features a new file may lose before check, import and update refuse it (docs/data.md, "A file that shrank"). */
export const DEFAULT_MAX_SHRINK_SHARE = 0.05;

const sha256 = z.string().regex(/^[0-9a-f]{64}$/, 'a sha256 is 64 lower-case hex digits');
const relFile = z
  .string()
  .min(1)
  .refine((p) => !path.isAbsolute(p) && !p.split(/[\\/]/).includes('..'), 'source files are relative paths inside the place folder');

const fileRef = z.object({ file: relFile, sha256 });

/** Rewrites a source value into a rules-file code: exact map first, then the first matching pattern. */
const codeMapping = z.object({
  field: z.string().min(1),
  /** Exact source value -> code (typos, aliases). */
  map: z.record(z.string(), z.string()).default({}),
  /** Regular expressions tried in order; `replace` may use $1.. groups. */
  patterns: z.array(z.object({ match: z.string().min(1), replace: z.string() })).default([]),
});

const zonesTarget = z.object({
  target: z.literal('zones'),
  /** base: districts that cover the place; overlay: districts that add to a base district. */
  zoneLayer: z.enum(['base', 'overlay']),
  code: codeMapping,
  nameField: z.string().optional(),
  /** Only features whose properties equal these values are loaded (others are counted as skipped); a list: any of its values. */
  where: z
    .record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(z.union([z.string(), z.number(), z.boolean(), z.null()])).min(1)]))
    .optional(),
  /** Source properties kept in zones.attrs, as attrName -> source field. */
  attrs: z.record(z.string(), z.string()).default({}),
  /** A property on base features that tags an overlay-like district (Cambridge PUD_TYPE): loaded as an overlay zone too. */
  overlayTagField: z.string().optional(),
  /** Repair self-intersecting rings (union of the polygon with itself). */
  repair: z.boolean().default(false),
});

const zoneNamesTarget = z.object({
  target: z.literal('zone_names'),
  codeField: z.string().min(1),
  nameField: z.string().min(1),
  descriptionField: z.string().optional(),
});

const parcelsTarget = z.object({
  target: z.literal('parcels'),
  idField: z.string().min(1),
  /** Source properties kept in parcels.attrs. */
  attrs: z.record(z.string(), z.string()).default({}),
  /** IDs that are not lots (road and placeholder pieces): rejected with a reason. */
  rejectIdPattern: z.string().optional(),
});

const parcelAttributesTarget = z.object({
  target: z.literal('parcel_attributes'),
  idField: z.string().min(1),
  /** attrName -> { field, kind }: numbers are kept as the maximum over rows, text as the first non-empty value. */
  fields: z.record(z.string(), z.object({ field: z.string().min(1), kind: z.enum(['number', 'text']) })),
  /** Name under which the values go into parcels.attrs. */
  as: z.string().min(1),
  /** A column holding the lot's street address (e.g. the assessor's Location): indexed for the geocoder (lot_locations). */
  locationField: z.string().optional(),
});

const addressesTarget = z.object({
  target: z.literal('addresses'),
  fields: z
    .object({
      addressId: z.string().optional(),
      /** A one-line address column ("129 KNOLLWOOD DR", "12A Main St Unit 4"): parsed with siteline's address parser. */
      oneLine: z.string().optional(),
      number: z.string().optional(),
      numberSuffix: z.string().optional(),
      streetName: z.string().optional(),
      streetType: z.string().optional(),
      predir: z.string().optional(),
      postdir: z.string().optional(),
      unit: z.string().optional(),
      postcode: z.string().optional(),
      fullAddress: z.string().optional(),
      parcelId: z.string().optional(),
      /** The point's x / y columns (lon / lat, or projected x / y with the source's `crs`). */
      lon: z.string().optional(),
      lat: z.string().optional(),
      /**
       * The oneLine column holds comma-separated parts (Somerville's assessor: "11 WINDOM ST #1, WINDOM ST,
       * SOMERVILLE, 02144"): the part (0-based) that is the street address, and the one that may be a ZIP.
       */
      oneLineParts: z
        .object({ address: z.number().int().min(0), postcode: z.number().int().min(0).optional() })
        .strict()
        .optional(),
    })
    .refine((f) => f.oneLine !== undefined || (f.number !== undefined && f.streetName !== undefined), {
      message: 'an address table needs either a one-line address column (fields.oneLine) or both fields.number and fields.streetName',
    }),
  /**
   * How an address finds its lot: `id` (its parcel id column), `point` (its point inside a parcel) or
   * `id_then_point` (the id, else the point). Default: `id` with a parcelId column, else `point`.
   */
  lotBy: z.enum(['id', 'point', 'id_then_point']).optional(),
  /** Parcel ids that mean "no parcel" (e.g. 'ROAD-'): kept as an address without a parcel. */
  nullParcelIds: z.array(z.string()).default([]),
  /** Parcel ids matching this pattern also mean "no parcel" (road and placeholder ids). */
  nullParcelIdPattern: z.string().optional(),
  /**
   * Parcel ids that place the address in a street or public way (Cambridge: "ROAD-", "ROAD"): such an
   * address is never answered with a private lot (docs/geocoder.md).
   */
  rightOfWayParcelIds: z.array(z.string()).default([]),
  /**
   * A range of numbers written for one building ("26-28 IRVINGTON RD"): loaded as each number of the
   * range on its side of the street (26, 28), up to 10, every row naming the lot and the address as written.
   */
  expandNumberRanges: z.boolean().default(false),
  /** House number 0 marks a lot without one (an assessor's vacant land): rejected as no house number. */
  zeroIsNoNumber: z.boolean().default(false),
});

const streetSegmentsTarget = z.object({
  target: z.literal('street_segments'),
  fields: z.object({
    id: z.string().optional(),
    street: z.string().optional(),
    streetName: z.string().optional(),
    streetType: z.string().optional(),
    lFrom: z.string(),
    lTo: z.string(),
    rFrom: z.string(),
    rTo: z.string(),
    zipLeft: z.string().optional(),
    zipRight: z.string().optional(),
  }),
  /** The value that means "no range on this side". */
  noRangeValue: z.number().default(-1),
});

const boundaryTarget = z.object({ target: z.literal('boundary') });

const csvOptions = z.object({
  header: z.boolean().default(true),
  /** Column names when the file has no header row. */
  columns: z.array(z.string()).optional(),
  delimiter: z.string().length(1).default(','),
});

const formatSpec = z.discriminatedUnion('format', [
  z.object({ format: z.literal('geojson'), gzip: z.boolean().default(false) }),
  z.object({ format: z.literal('topojson'), object: z.string().min(1) }),
  z.object({ format: z.literal('csv'), csv: csvOptions.default({ header: true, delimiter: ',' }), encoding: z.string().default('utf-8') }),
  z.object({
    format: z.literal('shapefile'),
    /** DBF text encoding (no .cpg beside Saanich's: Windows ANSI = windows-1252). */
    encoding: z.string().default('utf-8'),
    dbf: fileRef,
    prj: fileRef,
    shx: fileRef.optional(),
    /** The .dbf columns to read (an allow-list: any other column is never decoded). Unset: every column. */
    columns: z.array(z.string().min(1)).min(1).optional(),
  }),
  z.object({
    format: z.literal('shapefile-zip'),
    /** The shapefile inside the zip (its name without .shp); default: the zip's one .shp. */
    member: z.string().min(1).optional(),
    encoding: z.string().default('utf-8'),
    /**
     * The .dbf columns to read, an allow-list: any other column is never decoded, so a column of
     * people's names (an assessor's owners) never enters the process. Required for a zipped shapefile.
     */
    columns: z.array(z.string().min(1)).min(1),
  }),
  z.object({ format: z.literal('ozfs-zoning') }),
  z.object({ format: z.literal('ozfs-parcel') }),
]);

const targetSpec = z.discriminatedUnion('target', [
  zonesTarget,
  zoneNamesTarget,
  parcelsTarget,
  parcelAttributesTarget,
  addressesTarget,
  streetSegmentsTarget,
  boundaryTarget,
]);

const sourceSchema = z
  .object({
    id: z.string().regex(/^[a-z0-9_-]+$/),
    /** Layer name shown in the catalogue ("Zoning districts"). */
    name: z.string().min(1),
    file: relFile,
    sha256,
    vintage: z.string().min(1),
    licence: z.string().min(1),
    attribution: z.string().min(1),
    origin: z.string().optional(),
    /** Rows (records, features) the source is expected to hold; the import refuses a count off by more than rowTolerance. */
    expectedRows: z.number().int().positive().optional(),
    /** Allowed relative deviation from expectedRows (0.02 = 2 %). */
    rowTolerance: z.number().min(0).max(1).default(DEFAULT_ROW_TOLERANCE),
    /** The import refuses the place when more than this share of the source's rows is rejected. */
    maxRejectedShare: z.number().min(0).max(1).default(DEFAULT_MAX_REJECTED_SHARE),
    /**
     * The rows (records) and features (rows loaded) the source held when they were recorded (data init;
     * data update records the new ones). Optional and without a default, so older manifests keep their digest.
     */
    counts: z
      .object({ rows: z.number().int().min(0), features: z.number().int().min(0) })
      .strict()
      .optional(),
    /** The share of the recorded rows or features a new file may lose (default DEFAULT_MAX_SHRINK_SHARE, 0.05); more is refused unless accepted with a reason. */
    maxShrinkShare: z.number().min(0).max(1).optional(),
    /** The coordinates' CRS when not lon/lat and not named by the file itself: EPSG:<code>, a proj4 string or WKT. */
    crs: z.string().min(1).optional(),
    load: targetSpec,
  })
  .and(formatSpec);

/**
 * A file the place holds besides its layers: a licence, a field dictionary, or a document citations
 * point into. A citable document has an `id` (rules files cite it by that id) and says what it is:
 * title, format, edition (or effective date), retrieval date, licence and where it is published.
 */
const documentSchema = z
  .object({
    file: relFile,
    sha256,
    role: z.string().min(1),
    id: z
      .string()
      .regex(/^[a-z0-9][a-z0-9-]*$/)
      .optional(),
    title: z.string().min(1).optional(),
    format: z.enum(['markdown', 'html', 'text', 'pdf']).optional(),
    edition: z.string().min(1).optional(),
    retrieved: z.string().min(1).optional(),
    licence: z.string().min(1).optional(),
    url: z.string().url().optional(),
  })
  .strict()
  .superRefine((d, ctx) => {
    if (d.id === undefined) return;
    for (const k of ['title', 'format', 'edition', 'retrieved', 'licence', 'url'] as const)
      if (d[k] === undefined) ctx.addIssue({ code: 'custom', path: [k], message: `a citable document (id ${d.id}) needs ${k}` });
  });

export const manifestSchema = z.object({
  slug: z.string().regex(/^[a-z0-9-]+$/),
  geoDivisionId: z.string().regex(/^(US|CA)-[A-Z]{2}:[a-z0-9-]+$/, 'geoDivisionId is <ISO 3166-2>:<name key>'),
  name: z.string().min(1),
  region: z.string().regex(/^[A-Z]{2}$/),
  country: z.enum(['US', 'CA']),
  aliases: z.array(z.string().min(1)).default([]),
  /**
   * Postal city names the place's addresses are written with although they name another municipality
   * (Saanich's addresses are usually "Victoria, BC"): such a name is ambiguous between the places.
   */
  postalCities: z.array(z.string().min(1)).default([]),
  /** live: addresses can be answered once imported; planned_not_live: catalogued, layers queryable, no answers. */
  status: z.enum(['live', 'planned_not_live']),
  /** Why a planned place cannot answer addresses yet (shown in coverage reasons). */
  statusReason: z.string().optional(),
  bbox: z.tuple([z.number(), z.number(), z.number(), z.number()]),
  /** Folder under the source directory that holds this place's files. */
  sourceFolder: relFile,
  rulesFile: z.string().min(1),
  /** Imported on first start of an empty database. */
  defaultImport: z.boolean().default(true),
  /** The data layers. A rules-only place (ordinance text, no layers yet) has none and cannot be live. */
  sources: z.array(sourceSchema).default([]),
  documents: z.array(documentSchema).default([]),
  /**
   * A `live` place is answered only when its import measures at least these join rates (0..1);
   * below them it stays planned_not_live and the import says why. Defaults: DEFAULT_JOIN_THRESHOLDS.
   */
  joinThresholds: z
    .object({ addressToLot: z.number().min(0).max(1).optional(), lotToZone: z.number().min(0).max(1).optional() })
    .strict()
    .optional(),
  /**
   * Where a lot's zoning district comes from: `zoning_layer` (the default: a zoning map among the
   * sources) or `stated` (no zoning map is held: the caller states the district, every answer says so,
   * and the lot -> zone join is not a condition of going live). docs/data.md, "A place without a zoning map".
   */
  districtSource: z.enum(['zoning_layer', 'stated']).default('zoning_layer'),
  /** Why the districts are stated (shown with every answer there), e.g. "the City's zoning map is not held". */
  districtSourceNote: z.string().min(1).optional(),
});

/** Join rates a live place must reach (docs/data.md, "Going live"). */
export const DEFAULT_JOIN_THRESHOLDS = { addressToLot: 0.9, lotToZone: 0.95 } as const;

export type Manifest = z.infer<typeof manifestSchema>;
export type ManifestDocument = Manifest['documents'][number];
export type ManifestSource = Manifest['sources'][number];
export type CodeMapping = z.infer<typeof codeMapping>;

export function manifestPath(slug: string, placesDir: string): string {
  return path.join(placesDir, slug, 'manifest.json');
}

/** Slugs of every place folder that holds a manifest, sorted. */
export function listManifestSlugs(placesDir: string): string[] {
  if (!fs.existsSync(placesDir)) return [];
  return fs
    .readdirSync(placesDir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && fs.existsSync(path.join(placesDir, e.name, 'manifest.json')))
    .map((e) => e.name)
    .sort();
}

/** Parses a manifest's text; a bad manifest is a bad_input error naming the first problems. */
export function parseManifest(text: string, where: string): Manifest {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new SitelineError('bad_input', `${where}: not valid JSON (${(err as Error).message})`);
  }
  const r = manifestSchema.safeParse(json);
  if (!r.success) {
    const lines = r.error.issues.slice(0, 5).map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
    throw new SitelineError('bad_input', `${where}: invalid manifest\n  ${lines.join('\n  ')}`);
  }
  const ids = new Set<string>();
  for (const s of r.data.sources) {
    if (ids.has(s.id)) throw new SitelineError('bad_input', `${where}: source id "${s.id}" appears twice`);
    ids.add(s.id);
  }
  if (r.data.status === 'live' && r.data.sources.length === 0)
    throw new SitelineError('bad_input', `${where}: a live place needs its data layers (sources); a rules-only place is planned_not_live`);
  const baseZoning = r.data.sources.some((s) => s.load.target === 'zones' && s.load.zoneLayer === 'base');
  if (r.data.districtSource === 'stated' && baseZoning)
    throw new SitelineError('bad_input', `${where}: districtSource "stated" is for a place without a zoning map, but a source loads base zoning districts`);
  if (r.data.districtSource === 'stated' && !r.data.districtSourceNote)
    throw new SitelineError('bad_input', `${where}: districtSource "stated" needs districtSourceNote (why the district is stated, shown with every answer)`);
  const docIds = new Set<string>();
  for (const d of r.data.documents) {
    if (d.id === undefined) continue;
    if (docIds.has(d.id)) throw new SitelineError('bad_input', `${where}: document id "${d.id}" appears twice`);
    docIds.add(d.id);
  }
  return r.data;
}

export function loadManifest(slug: string, placesDir: string): Manifest {
  if (!/^[a-z0-9-]+$/.test(slug)) throw new SitelineError('bad_input', `"${slug}" is not a place slug (lower-case letters, digits and dashes)`);
  const file = manifestPath(slug, placesDir);
  if (!fs.existsSync(file)) {
    const known = listManifestSlugs(placesDir);
    throw new SitelineError('not_found', `No place "${slug}". Known places: ${known.join(', ') || '(none)'}`);
  }
  const m = parseManifest(fs.readFileSync(file, 'utf8'), path.relative(process.cwd(), file));
  if (m.slug !== slug) throw new SitelineError('bad_input', `${file}: slug "${m.slug}" does not match its folder "${slug}"`);
  return m;
}

export function loadAllManifests(placesDir: string): Manifest[] {
  return listManifestSlugs(placesDir).map((s) => loadManifest(s, placesDir));
}

/** Every file a source reads (the main file, then companions), with its declared checksum. */
export function sourceFiles(s: ManifestSource): { file: string; sha256: string }[] {
  const files = [{ file: s.file, sha256: s.sha256 }];
  if (s.format === 'shapefile') {
    files.push(s.dbf, s.prj);
    if (s.shx) files.push(s.shx);
  }
  return files;
}

/** A stable digest of the manifest's meaning (key order does not matter). */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .sort()
      .filter((k) => o[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

export function digestOf(...parts: string[]): string {
  const h = crypto.createHash('sha256');
  for (const p of parts) h.update(p).update('\0');
  return h.digest('hex');
}
