// Finds a knowledge section by its sectionUuid among the rules of every catalogued place.
import fs from 'node:fs';
import path from 'node:path';
import type { AppContext } from '../context.ts';
import { loadPlaceRules } from '../rules/load-rules.ts';
import { stampSectionUuids, type KnowledgeSection } from '../rules/knowledge-sections.ts';

export async function knowledgeSections(ctx: AppContext): Promise<KnowledgeSection[]> {
  const rows = await ctx.db.query<{ slug: string }>('SELECT slug FROM places ORDER BY slug');
  const out: KnowledgeSection[] = [];
  for (const { slug } of rows) {
    if (!fs.existsSync(path.join(ctx.config.placesDir, slug, 'rules.json'))) continue;
    try {
      const rules = await loadPlaceRules(slug, { sourceDir: ctx.config.sourceDir, placesDir: ctx.config.placesDir });
      out.push(...stampSectionUuids(rules));
    } catch {
      // A place whose rules cannot be read right now has no sections to offer.
    }
  }
  return out;
}

export async function findKnowledgeSection(ctx: AppContext, sectionUuid: string): Promise<KnowledgeSection | null> {
  const needle = sectionUuid.toLowerCase();
  return (await knowledgeSections(ctx)).find((s) => s.sectionUuid === needle) ?? null;
}
