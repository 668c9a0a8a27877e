// The feasibility analysis's result, as analyseFeasibility (src/analysis/feasibility-analysis.ts) makes it and
// analysis_runs.result stores it (canonical JSON), and its one reader: every surface that shows an analysis
// (the project context, the project page, the PDF report) reads the stored text through readAnalysisResult.
import type { Sourced } from '../core/snapshot-types.ts';
import type { ValueStatus } from '../core/statuses.ts';
import type { NamedSources } from '../snapshot/refs.ts';

/** A value the analysis computed from the standards, with the formula and the members it used. */
export interface DerivedValue {
  value: number | null;
  status: ValueStatus;
  unit: string;
  formula: string;
  inputs: string[];
  condition?: string;
  note?: string;
}

export interface BuildLotSummary {
  parcelExternalId: string;
  geoDivisionId: string;
  areaSqft: number;
  vintage: string;
  /** The lot's own warnings (an area in conflict with the assessor's, say). */
  warnings?: string[];
}

export interface EvidenceItem {
  member: string;
  document: string;
  section: string;
  quote: string;
  href: string;
  sourceUrl: string;
  date: string;
  sectionUuid?: string;
  status: ValueStatus;
}

export interface FeasibilityAnalysis {
  analysisVersion: string;
  inputsDigest: string;
  contextLots: {
    count: number;
    totalAreaSqft: number;
    lots: { parcelExternalId: string; areaSqft: number; districts: string[] }[];
    note: string;
  };
  /** The build lots; only their ids when the place of the build lot is no longer catalogued. */
  buildLots: BuildLotSummary[] | string[];
  combinedLotArea: { value: number | null; unit: 'sqft'; status?: 'missing'; basis?: 'parcel_geometry' };
  /** Absent when no rules could be applied (no build lot, or its place is gone). */
  lot?: { frontageFt: number | null; depthFt: number | null; cornerLot: boolean | null };
  place?: { geoDivisionId: string; bylaw: string; bylawDate: string; sources?: NamedSources };
  governingDistricts: { code: string; name: string | null; areaShare: number }[];
  splitSite?: boolean;
  standards: Record<string, Sourced>;
  /** maxFloorAreaSqft, maxDwellingUnits, buildableFootprintSqft, gfaEnvelopeSqft (DerivedValue); maxStoreys and maxHeightFt (the standard, with its formula). */
  derived: Record<string, DerivedValue | (Sourced & { formula: string; inputs: string[] })>;
  evidence: EvidenceItem[];
  notes: string[];
}

/** Reads a stored result; a text that is not an analysis result (a damaged row) is an error that names what is missing. */
export function readAnalysisResult(text: string): FeasibilityAnalysis {
  const r = JSON.parse(text) as Partial<FeasibilityAnalysis> | null;
  const missing = (['analysisVersion', 'inputsDigest', 'combinedLotArea', 'governingDistricts', 'standards', 'derived', 'evidence', 'notes'] as const).filter(
    (k) => r?.[k] === undefined,
  );
  if (!r || typeof r !== 'object' || missing.length)
    throw new Error(`The stored analysis result is not an analysis: it lacks ${missing.join(', ') || 'everything'}.`);
  return r as FeasibilityAnalysis;
}
