// Finds a knowledge section by its sectionUuid among the rules of every catalogued place.
import fs from 'node:fs';
import path from 'node:path';
import type { AppContext } from '../context.ts';
import { loadPlaceRules, RulesFileError } from '../rules/load-rules.ts';
import { knowledgeSectionsOf, type KnowledgeSection } from '../rules/knowledge-sections.ts';

export async function knowledgeSections(ctx: AppContext): Promise<KnowledgeSection[]> {
  const rows = await ctx.db.query<{ slug: string }>('SELECT slug FROM places ORDER BY slug');
  const out: KnowledgeSection[] = [];
  for (const { slug } of rows) {
    if (!fs.existsSync(path.join(ctx.config.placesDir, slug, 'rules.json'))) continue;
    try {
      const rules = await loadPlaceRules(slug, { sourceDir: ctx.config.sourceDir, placesDir: ctx.config.placesDir });
      out.push(...knowledgeSectionsOf(rules));
    } catch (err) {
      // A place whose rules do not load (a document changed, a citation no longer verifies) offers no
      // sections until they are mended; that is logged, not hidden.
      if (!(err instanceof RulesFileError)) throw err;
      ctx.logger.warn({ place: slug, err: err.message }, 'knowledge sections: rules do not load');
    }
  }
  return out;
}

export async function findKnowledgeSection(ctx: AppContext, sectionUuid: string): Promise<KnowledgeSection | null> {
  const needle = sectionUuid.toLowerCase();
  return (await knowledgeSections(ctx)).find((s) => s.sectionUuid === needle) ?? null;
}
