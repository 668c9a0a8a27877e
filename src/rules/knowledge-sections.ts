// Knowledge sections: the bylaw sections behind a place's rules file, one per cited section. Each
// has a stable UUID derived from place + bylaw + section (UUIDv5), so it survives re-imports and
// rules reloads; load-rules stamps it next to every citation, so an agent can attach what it read.
import { uuidV5 } from '../core/canonical-json.ts';
import type { Citation, PlaceRules, RuleValue } from './rules-schema.ts';

/** Fixed namespace for section UUIDs (never change it: saved references would no longer resolve). */
export const SECTION_UUID_NAMESPACE = '6f1d3c2a-7b4e-5a8f-9c0d-2e3f4a5b6c7d';

export interface KnowledgeSection {
  sectionUuid: string;
  place: string;
  bylaw: string;
  section: string;
  title: string;
  sourceUrl: string;
  date: string;
  /** The bylaw's words where the rules file quotes them. */
  text?: string;
  /** The districts whose values cite this section. */
  districts: string[];
}

export function sectionUuidOf(placeSlug: string, bylawName: string, section: string): string {
  return uuidV5(`${placeSlug}\u0000${bylawName}\u0000${section.trim()}`, SECTION_UUID_NAMESPACE);
}

type Stamped = Citation & { sectionUuid?: string };

function* citationsOf(rules: PlaceRules): Generator<{ citation: Stamped; district: string | null; label: string }> {
  for (const [code, d] of Object.entries(rules.districts)) {
    const values: RuleValue[] = [...Object.values(d.standards).filter((v): v is RuleValue => !!v), ...(d.otherStandards ? [d.otherStandards] : [])];
    for (const v of values) if (v.citation) yield { citation: v.citation, district: code, label: d.name };
    for (const u of d.uses) if (u.citation) yield { citation: u.citation, district: code, label: d.name };
  }
}

/** Puts sectionUuid next to every citation of the rules (in place) and returns the sections. */
export function stampSectionUuids(rules: PlaceRules): KnowledgeSection[] {
  const byUuid = new Map<string, KnowledgeSection>();
  for (const { citation, district } of citationsOf(rules)) {
    const uuid = sectionUuidOf(rules.slug, rules.bylaw.name, citation.section);
    citation.sectionUuid = uuid;
    let s = byUuid.get(uuid);
    if (!s) {
      s = {
        sectionUuid: uuid,
        place: rules.slug,
        bylaw: rules.bylaw.name,
        section: citation.section,
        title: `${rules.bylaw.name}, ${citation.section}`,
        sourceUrl: citation.sourceUrl,
        date: citation.date,
        districts: [],
      };
      byUuid.set(uuid, s);
    }
    if (citation.excerpt && !s.text) s.text = citation.excerpt;
    if (district && !s.districts.includes(district)) s.districts.push(district);
  }
  return [...byUuid.values()].sort((a, b) => a.section.localeCompare(b.section) || a.sectionUuid.localeCompare(b.sectionUuid));
}
