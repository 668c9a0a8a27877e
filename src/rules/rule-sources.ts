// What "S1", "S2"… in a place's rules notes are: the source table of the place's research notes
// (RULES-FACTS.md in the place's source folder: `| S1 | title – url | date | kind |`), read once per
// file per context (ctx.caches; the rulesReloaded door reads it again). When the file is not there, the
// site page still lists each id it shows, saying it is undefined.
import fs from 'node:fs';
import path from 'node:path';
import type { AppContext } from '../context.ts';
import { cacheKind, type CacheDoors } from '../caches.ts';

export interface RuleSource {
  id: string;
  title: string;
  url: string | null;
  date: string;
}

/** One context's research notes, by file, until its rulesReloaded door opens. */
class RuleSourceTables implements CacheDoors {
  readonly byFile = new Map<string, Map<string, RuleSource>>();
  rulesReloaded(): void {
    this.byFile.clear();
  }
}
const RULE_SOURCES = cacheKind('research notes', () => new RuleSourceTables());

/** The S-ids of a place's research notes (config.sourceDir/<sourceFolder>/RULES-FACTS.md); empty when it has none. */
export function ruleSources(ctx: Pick<AppContext, 'config' | 'caches'>, sourceFolder: string): Map<string, RuleSource> {
  const sourceDir = ctx.config.sourceDir;
  if (!sourceDir || !/^[A-Za-z0-9._-]+$/.test(sourceFolder)) return new Map();
  const file = path.join(sourceDir, sourceFolder, 'RULES-FACTS.md');
  const cache = ctx.caches.of(RULE_SOURCES).byFile;
  const hit = cache.get(file);
  if (hit) return hit;
  const out = new Map<string, RuleSource>();
  let text = '';
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    // No research notes for this place (no file): nothing to define. A file that is there but cannot be
    // read (permissions, a directory in its place) is a fault the caller hears about.
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw new Error(`Cannot read the research notes ${file}: ${code ?? String(err)}`, { cause: err });
  }
  for (const line of text.split('\n')) {
    const m = /^\|\s*(S\d+)\s*\|([^|]*)\|([^|]*)\|/.exec(line);
    if (!m) continue;
    const cell = m[2]!.trim();
    const url = /https?:\/\/\S+/.exec(cell)?.[0] ?? null;
    const title = cell
      .replace(/\s*[–-]\s*https?:\/\/.*$/, '')
      .replace(/`/g, '')
      .trim();
    out.set(m[1]!, { id: m[1]!, title: title || cell, url, date: m[3]!.replace(/\*\*/g, '').trim() });
  }
  cache.set(file, out);
  return out;
}
