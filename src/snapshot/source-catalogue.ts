// A place's source catalogue: every source an answer there can name, in full (name, vintage, licence,
// attribution, URL), defined once per place instead of in every snapshot (docs/snapshot.md, "Sources").
// It is the same for every address of the place, so a snapshot names its sources by id with a short
// label and points here; the catalogue is served at /places/<slug>/sources.json (its version in the
// query, a digest of its content) and inlined on request (REST ?include=sources, the MCP tool's
// includeSources, the CLI, the web page).
import crypto from 'node:crypto';
import type { AppContext } from '../context.ts';
import { getPlaceBySlug, type PlaceRecord } from '../places/catalogue.ts';
import { isMissingRulesFile, loadPlaceRules } from '../rules/load-rules.ts';
import type { PlaceRules } from '../core/rules-schema.ts';
import type { Snapshot, SourceCatalogueRef, SourceRef } from '../core/snapshot-types.ts';
import { compareNamedSourceIds } from './refs.ts';

export interface SourceCatalogue {
  place: string;
  /** A digest of `sources`: changes whenever the place's import manifest or rules file changes a source. */
  version: string;
  /** Every source by id: the data layers (id = layer), `rules` (the bylaw), the documents the notes name (S1, ...). */
  sources: Record<string, SourceRef>;
  /** The statements the licences require wherever the data is used (see `requiresAttribution`). */
  attribution: string[];
  ref: SourceCatalogueRef;
}

/**
 * A public-domain dedication asks for no attribution; any other licence (OGL-BC, MIT, CC BY, ...) is
 * taken to require its statement in every answer that uses the data, so the snapshot carries it inline.
 */
export function requiresAttribution(licence: string): boolean {
  return !/\b(PDDL|CC0)\b|public domain/i.test(licence);
}

export function sourceCataloguePath(slug: string): string {
  return `/places/${slug}/sources.json`;
}

function build(place: PlaceRecord, rules: Pick<PlaceRules, 'bylaw' | 'sources'> | null): SourceCatalogue {
  const sources: Record<string, SourceRef> = {};
  const attribution = new Set<string>();
  // The city boundary places a point (cityInventory); an address snapshot never reads it.
  for (const l of place.layers) {
    if (l.layer === 'boundary') continue;
    sources[l.layer] = { label: l.name, name: l.name, vintage: l.vintage, licence: l.licence, ...(l.attribution ? { attribution: l.attribution } : {}) };
    if (l.attribution && requiresAttribution(l.licence)) attribution.add(l.attribution);
  }
  if (rules) {
    sources['rules'] = { label: rules.bylaw.name, name: rules.bylaw.name, vintage: rules.bylaw.date, ...(rules.bylaw.url ? { url: rules.bylaw.url } : {}) };
    const ids = Object.keys(rules.sources ?? {}).sort(compareNamedSourceIds);
    for (const id of ids) {
      const d = rules.sources![id]!;
      sources[id] = { label: d.label ?? d.name, name: d.name, vintage: d.vintage, url: d.url };
    }
  }
  const version = crypto.createHash('sha256').update(JSON.stringify(sources)).digest('hex').slice(0, 12);
  return {
    place: place.slug,
    version,
    sources,
    attribution: [...attribution],
    ref: { url: `${sourceCataloguePath(place.slug)}?v=${version}` },
  };
}

// Built once per (place record, rules object): both are cached upstream and replaced when they change.
const built = new WeakMap<PlaceRecord, WeakMap<object, SourceCatalogue>>();
const NO_RULES = {};
export function sourceCatalogueOf(place: PlaceRecord, rules: Pick<PlaceRules, 'bylaw' | 'sources'> | null): SourceCatalogue {
  let byRules = built.get(place);
  if (!byRules) built.set(place, (byRules = new WeakMap()));
  let c = byRules.get(rules ?? NO_RULES);
  if (!c) byRules.set(rules ?? NO_RULES, (c = build(place, rules)));
  return c;
}

/** A place's catalogue with its rules' sources when it has a rules file (the same one its answers name). */
export async function placeSourceCatalogue(ctx: AppContext, place: PlaceRecord): Promise<SourceCatalogue> {
  let rules: PlaceRules | null;
  try {
    rules = await loadPlaceRules(ctx, place.slug);
  } catch (err) {
    // A place without a rules file has a catalogue of its data sources only; a broken rules file is a
    // fault the caller hears about (the place's answers cannot be given either).
    if (!isMissingRulesFile(err)) {
      ctx.logger.error({ place: place.slug, err: err instanceof Error ? err.message : String(err) }, 'source catalogue: the rules do not load');
      throw err;
    }
    rules = null;
  }
  return sourceCatalogueOf(place, rules);
}

/** The catalogue of a place by slug (null when the place is unknown). */
export async function loadSourceCatalogue(ctx: AppContext, slug: string): Promise<SourceCatalogue | null> {
  const place = await getPlaceBySlug(ctx, slug);
  return place ? placeSourceCatalogue(ctx, place) : null;
}

/**
 * The snapshot with its place's source catalogue inline (`sourceCatalogue.sources`: every source in
 * full); nothing else changes. A snapshot without a catalogue is returned as is.
 */
export async function withSourcesInline(ctx: AppContext, snapshot: Snapshot): Promise<Snapshot> {
  const slug = snapshot.sourceCatalogue?.url.match(/^\/places\/([a-z0-9-]+)\/sources\.json/)?.[1];
  const catalogue = slug ? await loadSourceCatalogue(ctx, slug) : null;
  if (!catalogue) return snapshot;
  return { ...snapshot, sourceCatalogue: { ...catalogue.ref, sources: catalogue.sources } };
}
