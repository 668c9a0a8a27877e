// Knowledge sections: the sections of a place's held documents that its citations quote. Each has a
// stable UUID derived from place + document + section (UUIDv5), so it survives re-imports and rules
// reloads; its text is the section's own words, read from the document. load-rules builds them when
// it verifies the citations and stamps sectionUuid next to every citation, so an agent can attach
// what it read (saveToProject attach_reference).
import { uuidV5 } from '../core/canonical-json.ts';
import type { PlaceRules } from '../core/rules-schema.ts';

/** Fixed namespace for section UUIDs (never change it: saved references would no longer resolve). */
export const SECTION_UUID_NAMESPACE = '6f1d3c2a-7b4e-5a8f-9c0d-2e3f4a5b6c7d';

export interface KnowledgeSection {
  sectionUuid: string;
  /** The place's slug. */
  place: string;
  /** The document's title. */
  bylaw: string;
  /** The held document's id in the place's manifest. */
  document: string;
  section: string;
  title: string;
  sourceUrl: string;
  date: string;
  /** The section's words as the held document has them (cut at 20,000 characters). */
  text: string;
  /** The service's page showing the section. */
  href: string;
  /** The districts whose values cite this section. */
  districts: string[];
}

export function sectionUuidOf(placeSlug: string, documentId: string, section: string): string {
  return uuidV5(`${placeSlug}\u0000${documentId}\u0000${section.trim()}`, SECTION_UUID_NAMESPACE);
}

const sectionsByRules = new WeakMap<PlaceRules, KnowledgeSection[]>();

/** Records the knowledge sections of loaded rules (load-rules, after verification). */
export function setKnowledgeSections(rules: PlaceRules, sections: KnowledgeSection[]): void {
  sectionsByRules.set(
    rules,
    sections.sort((a, b) => a.section.localeCompare(b.section, 'en', { numeric: true }) || a.sectionUuid.localeCompare(b.sectionUuid)),
  );
}

/** The knowledge sections of a place's loaded rules (none when nothing is cited). */
export function knowledgeSectionsOf(rules: PlaceRules): KnowledgeSection[] {
  return sectionsByRules.get(rules) ?? [];
}
