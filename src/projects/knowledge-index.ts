// Finds a knowledge section by its sectionUuid among the rules of every catalogued place.
import fs from 'node:fs';
import path from 'node:path';
import type { AppContext } from '../context.ts';
import { SitelineError } from '../core/errors.ts';
import { loadPlaceRules, RulesFileError } from '../rules/load-rules.ts';
import { knowledgeSectionsOf, type KnowledgeSection } from '../rules/knowledge-sections.ts';

/** Every loaded place's sections, and the places whose rules file is there but does not load. */
async function knowledgeIndex(ctx: AppContext): Promise<{ sections: KnowledgeSection[]; unavailable: string[] }> {
  const rows = await ctx.db.query<{ slug: string }>('SELECT slug FROM places ORDER BY slug');
  const sections: KnowledgeSection[] = [];
  const unavailable: string[] = [];
  for (const { slug } of rows) {
    // A place without a rules file has no sections: expected, not a fault.
    if (!fs.existsSync(path.join(ctx.config.placesDir, slug, 'rules.json'))) continue;
    try {
      const rules = await loadPlaceRules(ctx, slug);
      sections.push(...knowledgeSectionsOf(rules));
    } catch (err) {
      // A place whose rules do not load (a document changed, a citation no longer verifies) offers no
      // sections until they are mended; that is logged, and a search that misses says so.
      if (!(err instanceof RulesFileError)) throw err;
      ctx.logger.warn({ place: slug, err: err.message }, 'knowledge sections: rules do not load');
      unavailable.push(slug);
    }
  }
  return { sections, unavailable };
}

/**
 * The section with this sectionUuid; null when no place has it. When it is not found and some place's
 * rules do not load, the section may be one of theirs: that is an 'unavailable' error, not a null.
 */
export async function findKnowledgeSection(ctx: AppContext, sectionUuid: string): Promise<KnowledgeSection | null> {
  const needle = sectionUuid.toLowerCase();
  const { sections, unavailable } = await knowledgeIndex(ctx);
  const found = sections.find((s) => s.sectionUuid === needle);
  if (found || unavailable.length === 0) return found ?? null;
  throw new SitelineError(
    'unavailable',
    `No loaded knowledge section has sectionUuid ${sectionUuid}, and the rules of ${unavailable.join(', ')} do not load at the moment, so it may be one of theirs. Try again later; nothing was attached.`,
    { field: 'sectionUuid', placesUnavailable: unavailable },
  );
}
