// The wire shape of a feasibility snapshot. Every surface (MCP, REST, CLI, web) returns it as is; see
// docs/snapshot.md for the meaning of each member. Provenance travels by reference: each source,
// citation and shared note is defined once in the snapshot's tables and named by id where it applies.
// `Sourced` (a value with its citation object) is the envelope's own shape before that (core, analysis, reports).
import type { CoverageStatus, ValueStatus } from './statuses.ts';

/**
 * Where a cited value's words are: a section of a document the service holds, quoted verbatim, and
 * verified by machine when the rules load (docs/data.md, "Citations").
 */
export interface Citation {
  /** The held document's id (its place's manifest declares it with its sha256, edition and licence). */
  document: string;
  /** The document's title, e.g. "Somerville Zoning Ordinance". */
  documentTitle: string;
  /** The section as the document numbers it, e.g. "3.1.8". */
  section: string;
  /** The bylaw's words, verbatim ("…" marks words left out); the value as written is in them. */
  quote: string;
  /** Where the document is published. */
  sourceUrl: string;
  /** The edition (or effective date) of the held text. */
  date: string;
  /** This service's page showing the quote highlighted in its section (a path on this service). */
  href: string;
  /** The knowledge section this citation reads from (stable UUID; saveToProject attach_reference takes it). */
  sectionUuid: string;
}

/** A value born with its provenance: never a bare number. */
export interface Sourced<T = number> {
  value: T | null;
  status: ValueStatus;
  unit?: string;
  citation?: Citation;
  /** For cited_conditional / conditional_unresolved: the condition as the bylaw states it. */
  condition?: string;
  /** Why the status is what it is, in one sentence (source named for unverified values). */
  note?: string;
  /** For derived values: the envelope members used. */
  inputs?: string[];
  /** The source id (S1...) that states there is no limit, on a null unverified_default value (docs/snapshot.md). */
  statedNoLimit?: string;
}

export interface Coverage {
  status: CoverageStatus;
  /** False: eligibility could not be determined at all (differs from "determined not covered"). */
  eligibilityKnown: boolean;
  message: string;
  geoDivisionId?: string;
  place?: { name: string; region: string; country: string };
  /** Only while the place is still loading at this server's start (src/places/place-loading.ts): ask again after this many seconds. */
  retryAfterSeconds?: number;
}

/** How the lot was found; `lot_id`: the caller named the lot by its id (src/snapshot/picked-lot.ts). */
export type MatchType = 'address_table' | 'assessor_table' | 'street_interpolation' | 'lot_id';

export interface AddressMatch {
  input: string;
  parsed: {
    number: string | null;
    street: string | null;
    unit: string | null;
    city: string | null;
    region: string | null;
    postcode: string | null;
    country: 'US' | 'CA' | null;
  };
  matchType: MatchType;
  /** 0..1: 1 is an exact address-table match. */
  confidence: number;
  matchedAddress: string;
  warnings: string[];
}

/** A lot measurement: measured from the parcel geometry, or missing (with status `missing`). */
export interface Measure {
  value: number | null;
  unit: string;
  basis: 'parcel_geometry' | 'missing';
  /** Present when value is null: always `missing` (the source data lacks what the measure needs). */
  status?: 'missing';
  /** Why it is missing (a measured value's basis says how it was measured). */
  note?: string;
}

/** An envelope value as a snapshot carries it: a Sourced value whose provenance is named by id. */
export interface SnapshotValue<T = number> {
  value: T | null;
  status: ValueStatus;
  /** The unit of a value that is there (a null has none). */
  unit?: string;
  /** Id in the snapshot's `citations`. */
  citation?: string;
  condition?: string;
  /** Id in the snapshot's `notes` when the condition is one several values share (then `condition` is absent). */
  conditionNote?: string;
  /** This value's own note. */
  note?: string;
  /** Ids in the snapshot's `notes`: texts several values share, each written once. */
  notes?: string[];
  inputs?: string[];
  /** The source id (in `sources`) that states there is no limit, on a null unverified_default value no bylaw text verifies. */
  statedNoLimit?: string;
}

export interface Lot {
  parcelExternalId: string;
  /** A point inside the lot (never a street or city centroid). */
  latitude: number;
  longitude: number;
  areaM2: number;
  areaSqft: number;
  frontageFt: Measure;
  depthFt: Measure;
  cornerLot: boolean | null;
  /** Present when the lot faces two streets but is not a corner lot by docs/lot-metrics.md: why, with the rule's threshold. */
  cornerLotNote?: string;
  frontStreet: string | null;
  /** Id in the snapshot's `sources` (the parcel layer). */
  source: string;
}

export interface ZoneShare {
  code: string;
  name: string | null;
  /** Fraction of the lot's area, 0..1. */
  share: number;
  /** Present on a piece under 5 % of the lot reported because its area is material (docs/lot-geometry.md). */
  minorShare?: { rule: 'area_at_least_1000_sqft'; areaSqft: number };
}

export interface OverlayShare extends ZoneShare {
  governingSection: string | null;
}

export interface Zones {
  /** The code of the primary district, one of `districts` (defined there once); null when none. */
  primary: string | null;
  districts: ZoneShare[];
  splitLot: boolean;
  overlays: OverlayShare[];
  /**
   * Present only in a place without a zoning map (Somerville): the district is the caller's, never read
   * from a map, and this says so (docs/snapshot.md, "A stated district"). Absent where a zoning layer gives it.
   */
  districtSource?: DistrictSource;
}

/** Where a stated district came from, said with every answer that uses it. */
export interface DistrictSource {
  kind: 'stated_by_caller';
  /** "stated by the caller; the City's zoning map is not held". */
  statement: string;
  /** The building type stated with it (a district that zones by building type), or null. */
  buildingType: string | null;
  /** The conditions of the table's rows the caller stated (driveway access, ...), each "stated by the caller"; absent when none. */
  conditions?: StatedConditionValue[];
}

/** A condition of a table's rows as stated: its key, name and value (the row's words). */
export interface StatedConditionValue {
  key: string;
  name: string;
  value: string;
}

/**
 * A condition a caller may state (src/rules/tier-conditions.ts): its values are the rows of the table
 * ("No Driveway Access", "Front Driveway Access"); `standards` the values it resolves; `buildingTypes`
 * the types whose tables state it so (absent where the district has no building types).
 */
export interface ConditionOption {
  key: string;
  name: string;
  values: string[];
  standards: string[];
  buildingTypes?: string[];
}

/** A district (and its building types) an answer can be asked again with. */
export interface DistrictOption {
  code: string;
  name: string;
  /** Present when the district zones by building type: the types its rules name. */
  buildingTypes?: string[];
  /** Present when a table of the district states values under conditions a caller may state. */
  conditions?: ConditionOption[];
}

/**
 * What an answer in a place without a zoning map still needs from its caller: the district (none was
 * stated), or the building type (the stated district zones by type). The lot is answered either way.
 */
export interface DistrictChoice {
  /** What is still to state: the district, the building type, or the conditions of the type's table (its values stay conditional_unresolved). */
  needs: 'district' | 'buildingType' | 'conditions';
  message: string;
  /** The place's districts (for `buildingType`: the stated one only), with their building types. */
  districts: DistrictOption[];
}

export interface PermittedUse {
  use: string;
  permission: 'as_of_right' | 'special_permit' | 'conditional' | 'prohibited' | 'unknown';
  status: ValueStatus;
  citation?: Citation;
  condition?: string;
  note?: string;
}

/** A permitted use as a snapshot carries it (citation, shared notes and sources by id, as SnapshotValue). */
export interface SnapshotUse {
  use: string;
  permission: PermittedUse['permission'];
  status: ValueStatus;
  citation?: string;
  condition?: string;
  /** Id in the snapshot's `notes` when the condition is one several values share (then `condition` is absent). */
  conditionNote?: string;
  note?: string;
  notes?: string[];
}

/** A source listed with its layer (reports list them so; a snapshot keys SourceRef by id instead). */
export interface LayerSource {
  layer: string;
  name: string;
  vintage: string;
  licence: string;
  attribution?: string;
  url?: string;
}

/**
 * A data layer, the bylaw, or a document the notes name, in full: an entry of a place's source
 * catalogue, keyed by the id a snapshot names it by (its `sources` give only the label).
 */
export interface SourceRef {
  /** A few words naming the source (its name, or for a document its kind, date or weight): what `Snapshot.sources` carries. */
  label: string;
  name: string;
  vintage: string;
  /** Data layers and the bylaw; a document named by the notes has none stated. */
  licence?: string;
  attribution?: string;
  url?: string;
}

/** The place's source catalogue: its path on this server, versioned by its content (`?v=`); its entries when asked for inline. */
export interface SourceCatalogueRef {
  url: string;
  /** Present only when the sources were asked for inline (MCP includeSources, REST include=sources, CLI, web page). */
  sources?: Record<string, SourceRef>;
}

export interface Snapshot {
  answered: boolean;
  coverage: Coverage;
  address?: AddressMatch;
  lot?: Lot;
  zones?: Zones;
  /** Only in a place without a zoning map, when the district or building type was not stated: what to state (docs/snapshot.md). */
  districtChoice?: DistrictChoice;
  permittedUses?: SnapshotUse[];
  envelope?: Record<string, SnapshotValue>;
  /**
   * The sources this answer names, id -> a short label: the parcel layer (`lot.source`) and the
   * documents the texts name (S1, ...). In full (name, vintage, licence, attribution, URL; every data
   * layer of the place and `rules`, the bylaw) in the place's catalogue, `sourceCatalogue`.
   */
  sources: Record<string, string>;
  /** Where the place's sources are defined in full, once for every answer there (and, asked for, the entries themselves). */
  sourceCatalogue?: SourceCatalogueRef;
  /** The attribution statements the data's licences require (e.g. OGL-BC), each once. Absent when none does. */
  attribution?: string[];
  /** Every citation, once, by id (c1, ...): values name theirs in `citation`. */
  citations?: Record<string, Citation>;
  /** Texts that several values share, once, by id (n1, ...): values name them in `notes`. */
  notes?: Record<string, string>;
  /** Suggestions when the address could not be matched (street names close to the one given). */
  suggestions?: string[];
  generatedAt: string;
}
