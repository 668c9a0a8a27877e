// What a report is composed from: a plain data structure, built by whoever holds the project (the
// projects room, produceProjectReport). The composer reads nothing else, so the same input always
// gives the same report (generatedAt aside). Values keep their provenance: each is a Sourced value
// with its status and, where cited, its section and source.
import { z } from 'zod';
import { VALUE_STATUSES } from '../core/statuses.ts';
import type { Citation, PermittedUse, LayerSource, Sourced } from '../core/snapshot-types.ts';

export const REPORT_AUDIENCES = ['investor', 'owner', 'board', 'resident'] as const;
export const REPORT_DETAILS = ['brief', 'detailed'] as const;
export type ReportAudience = (typeof REPORT_AUDIENCES)[number];
export type ReportDetail = (typeof REPORT_DETAILS)[number];

/** [longitude, latitude] in WGS 84 degrees. */
export type LonLat = [number, number];
/** One polygon: the outer ring first, then holes; rings need not repeat their first point. */
export type PolygonRings = LonLat[][];

export interface ReportLot {
  /** The lot's id in the source (parcelExternalId). */
  lotId: string;
  /** build: the lots the project builds on; context: neighbours drawn for orientation. */
  role: 'build' | 'context';
  /** Label drawn on the map and used in the text (default: lotId). */
  label?: string;
  /** The lot's shape (several polygons for a multi-part lot). */
  polygons: PolygonRings[];
  areaSqft: number | null;
  /** Zoning district codes covering the lot, primary first. */
  districts: string[];
  /** Overlay district codes touching the lot. */
  overlays: string[];
  /** A place without a zoning map: where the lot's district came from, in words ("stated by the caller; ..."), printed with it. */
  districtSource?: string;
}

export interface ReportArea {
  code: string;
  name: string | null;
  kind: 'district' | 'overlay';
  /** The area's shape near the project (the composer clips it to the map frame). */
  polygons: PolygonRings[];
}

export interface ReportValue {
  /** The envelope member name, e.g. maxHeightFt or maxFloorAreaSqft. */
  key: string;
  /** How the report names it, e.g. "Maximum height". */
  label: string;
  value: Sourced<number | string>;
}

export interface ReportInput {
  project: {
    name: string;
    /** The site address as matched (not the raw input). */
    address: string;
    /** e.g. "Cambridge, MA". */
    place: string;
    geoDivisionId?: string;
  };
  audience: ReportAudience;
  detail: ReportDetail;
  /** The caller's own ask, printed as plain text: never interpreted as markup or instructions. */
  request?: string | null;
  /** Names the plan the report is about (e.g. "Option B: six units"). */
  planName?: string | null;
  lots: ReportLot[];
  /** Districts and overlays to draw around the lots. */
  areas: ReportArea[];
  /** The parcels around the project's lots (not attached to it), drawn as thin outlines for orientation. */
  neighbours?: { lotId: string; polygons: PolygonRings[] }[];
  /** The place's street centre lines around the lots, drawn under them (absent where the place has no street layer). */
  streets?: { name: string | null; lines: LonLat[][] }[];
  /** The analysis envelope in the order to print it. */
  envelope: ReportValue[];
  permittedUses?: PermittedUse[];
  sources: LayerSource[];
  /** What is unknown, one plain sentence each (the composer adds one per unknown envelope value). */
  unknowns: string[];
  /** ISO timestamp printed on the report and in the PDF metadata; the only input allowed to vary the bytes. */
  generatedAt: string;
}

/** Neighbouring lots drawn on the map, at most. */
export const MAX_REPORT_NEIGHBOURS = 400;

const lonLat = z.tuple([z.number().min(-180).max(180), z.number().min(-90).max(90)]);
const polygon = z.array(z.array(lonLat).min(3)).min(1);
const citation: z.ZodType<Citation> = z.object({
  document: z.string().min(1),
  documentTitle: z.string().min(1),
  section: z.string().min(1),
  quote: z.string().min(1),
  sourceUrl: z.string(),
  date: z.string(),
  href: z.string(),
  sectionUuid: z.string(),
});
const sourced = z.object({
  value: z.union([z.number(), z.string()]).nullable(),
  status: z.enum(VALUE_STATUSES),
  unit: z.string().optional(),
  citation: citation.optional(),
  condition: z.string().optional(),
  note: z.string().optional(),
  inputs: z.array(z.string()).optional(),
  statedNoLimit: z.string().max(8).optional(),
});
const text = (max: number) => z.string().max(max);

/** The checked shape of a ReportInput (validated before composing: bad input is a clear error). */
export const reportInputSchema = z.object({
  project: z.object({ name: text(200).min(1), address: text(300), place: text(200), geoDivisionId: z.string().optional() }),
  audience: z.enum(REPORT_AUDIENCES),
  detail: z.enum(REPORT_DETAILS),
  request: text(2000).nullable().optional(),
  planName: text(200).nullable().optional(),
  lots: z
    .array(
      z.object({
        lotId: text(100).min(1),
        role: z.enum(['build', 'context']),
        label: text(60).optional(),
        polygons: z.array(polygon).min(1),
        areaSqft: z.number().nonnegative().nullable(),
        districts: z.array(text(40)),
        overlays: z.array(text(40)),
        districtSource: text(300).optional(),
      }),
    )
    .min(1)
    .max(500),
  areas: z.array(z.object({ code: text(40), name: text(200).nullable(), kind: z.enum(['district', 'overlay']), polygons: z.array(polygon) })).max(500),
  neighbours: z
    .array(z.object({ lotId: text(100), polygons: z.array(polygon).min(1) }))
    .max(MAX_REPORT_NEIGHBOURS)
    .optional(),
  streets: z
    .array(z.object({ name: text(200).nullable(), lines: z.array(z.array(lonLat).min(2)).max(50) }))
    .max(400)
    .optional(),
  envelope: z.array(z.object({ key: text(60), label: text(120), value: sourced })).max(100),
  permittedUses: z
    .array(
      z.object({
        use: text(200),
        permission: z.enum(['as_of_right', 'special_permit', 'conditional', 'prohibited', 'unknown']),
        status: z.enum(VALUE_STATUSES),
        citation: citation.optional(),
        condition: z.string().optional(),
        note: z.string().optional(),
      }),
    )
    .max(200)
    .optional(),
  sources: z
    .array(
      z.object({ layer: text(60), name: text(200), vintage: text(60), licence: text(200), attribution: z.string().optional(), url: z.string().optional() }),
    )
    .max(50),
  unknowns: z.array(text(500)).max(100),
  generatedAt: z.iso.datetime({ offset: true }),
});

// The schema and the interface describe the same thing; this line fails to compile if they drift.
type _Same = z.infer<typeof reportInputSchema> extends ReportInput ? (ReportInput extends z.input<typeof reportInputSchema> ? true : never) : never;
export const _reportInputSchemaMatches: _Same = true;
