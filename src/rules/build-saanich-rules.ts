// Generates places/saanich-bc/rules.json (output committed). Run:
//   node --import tsx src/rules/build-saanich-rules.ts [sourceDir]
// The Saanich zoning layer (saanich-bc/Zoning.dbf) links each zone TYPE to its page of Zoning
// Bylaw 8200. No value was read from those pages, so every standard is not_extracted, with the
// page as where to read it.
import fs from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../config.ts';
import { placeRulesSchema, type DistrictRules, type PlaceRules } from './rules-schema.ts';

/** The records of a dBase III file (character fields only are decoded; cp1252 text). */
export function readDbf(buf: Buffer): Record<string, string>[] {
  const count = buf.readUInt32LE(4);
  const headerLen = buf.readUInt16LE(8);
  const recordLen = buf.readUInt16LE(10);
  const fields: { name: string; len: number }[] = [];
  for (let o = 32; buf[o] !== 0x0d && o < headerLen; o += 32) {
    const raw = buf.subarray(o, o + 11);
    const end = raw.indexOf(0);
    fields.push({ name: raw.subarray(0, end < 0 ? 11 : end).toString('latin1'), len: buf[o + 16]! });
  }
  const decoder = new TextDecoder('windows-1252');
  const out: Record<string, string>[] = [];
  for (let i = 0; i < count; i++) {
    const start = headerLen + i * recordLen;
    if (buf[start] === 0x2a) continue; // deleted record
    let p = start + 1;
    const rec: Record<string, string> = {};
    for (const f of fields) {
      rec[f.name] = decoder.decode(buf.subarray(p, p + f.len)).trim();
      p += f.len;
    }
    out.push(rec);
  }
  return out;
}

export function buildSaanichRules(sourceDir: string): PlaceRules {
  const rows = readDbf(fs.readFileSync(path.join(sourceDir, 'saanich-bc', 'Zoning.dbf')));
  const districts: Record<string, DistrictRules> = {};
  for (const r of rows) {
    const code = r.TYPE ?? '';
    if (!code || districts[code]) continue;
    const page = r.BYLAW || undefined;
    const where = page ? `its page of Zoning Bylaw 8200 (${page})` : 'Zoning Bylaw 8200';
    districts[code] = {
      name: r.CLASS ? `${code} (${r.CLASS})` : code,
      ...(page ? { governedBy: `Zoning Bylaw 8200, zone ${code} (page ${/#page=(\d+)/.exec(page)?.[1] ?? '?'})`, sourceUrl: page } : {}),
      standards: {},
      otherStandards: { status: 'not_extracted', note: `Not extracted for zone ${code}; read ${where}.` },
      uses: [{ use: 'all uses', permission: 'unknown', status: 'not_extracted', note: `Uses not extracted for zone ${code}; read ${where}.` }],
    };
  }
  return placeRulesSchema.parse({
    slug: 'saanich-bc',
    country: 'CA',
    bylaw: { name: 'District of Saanich Zoning Bylaw 8200', url: 'https://www.saanich.ca/assets/Local~Government/Documents/Planning/zone8200.pdf', date: 'as linked by the zoning layer of 2021-04-27' },
    notes: [
      'Zone links come from the District of Saanich zoning layer (DBF dated 2021-04-27); later bylaw amendments, such as those for small-scale multi-unit housing (2023-24), are not reflected.',
      'Contains information licenced under the Open Government Licence – District of Saanich.',
    ],
    districts,
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const sourceDir = process.argv[2] ?? loadConfig().sourceDir;
  if (!sourceDir) throw new Error('no source directory: pass it or set SITELINE_SOURCE_DIR');
  const rules = buildSaanichRules(sourceDir);
  const out = path.resolve(import.meta.dirname, '../../places/saanich-bc/rules.json');
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, JSON.stringify(rules, null, 2) + '\n');
  console.log(`wrote ${out}: ${Object.keys(rules.districts).length} zones`);
}
