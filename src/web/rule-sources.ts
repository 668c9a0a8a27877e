// What "S1", "S2"… in a place's rules notes are: the source table of the place's research notes
// (RULES-FACTS.md in the place's source folder: `| S1 | title – url | date | kind |`), read once per
// file. When the file is not there, the page still lists each id it shows, saying it is undefined.
import fs from 'node:fs';
import path from 'node:path';

export interface RuleSource {
  id: string;
  title: string;
  url: string | null;
  date: string;
}

const cache = new Map<string, Map<string, RuleSource>>();

export function ruleSources(sourceDir: string | undefined, sourceFolder: string): Map<string, RuleSource> {
  if (!sourceDir || !/^[A-Za-z0-9._-]+$/.test(sourceFolder)) return new Map();
  const file = path.join(sourceDir, sourceFolder, 'RULES-FACTS.md');
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
    const title = cell.replace(/\s*[–-]\s*https?:\/\/.*$/, '').replace(/`/g, '').trim();
    out.set(m[1]!, { id: m[1]!, title: title || cell, url, date: m[3]!.replace(/\*\*/g, '').trim() });
  }
  cache.set(file, out);
  return out;
}

