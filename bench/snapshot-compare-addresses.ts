// Distinct Cambridge addresses from the city's address table, as a person would type them; with
// variants, every tenth-kind also a number the table lacks, a misspelt street, a postcode, a unit, a
// comma-less city or the other side of the street (the geocoder's other paths).
import fs from 'node:fs';
import path from 'node:path';
import { SHARED_DATA } from '../test/support/harness.ts';

export function cambridgeAddresses(n: number, variants: boolean): string[] {
  const text = fs
    .readFileSync(path.join(SHARED_DATA, 'cambridge-ma/Address/Address_Points/Master_Address_Database_with_MapLot_and_BldgID.csv'), 'utf8')
    .replace(/^\uFEFF/, '');
  const rows = text.split('\n').filter(Boolean).slice(1);
  const step = Math.max(1, Math.floor(rows.length / n));
  const out: string[] = [];
  const seen = new Set<string>();
  const push = (a: string) => {
    if (!seen.has(a)) seen.add(a), out.push(a);
  };
  for (let i = 0, k = 0; i < rows.length && out.length < n; i += step, k++) {
    const full = rows[i]!.split(',')[6]?.replace(/^"|"$/g, '');
    if (!full) continue;
    const m = /^(\d+)(\S*)\s+(.*)$/.exec(full);
    const variant = variants ? k % 10 : 0;
    if (m && variant === 1)
      push(`${Number(m[1]) + 2} ${m[3]}, Cambridge, MA`); // a number the table may lack
    else if (m && variant === 2)
      push(`${m[1]}${m[2]} ${m[3]!.replace(/([AEIOU])/, '$1$1')}, Cambridge, MA`); // misspelt
    else if (variant === 3) push(`${full}, Cambridge, MA 02139`);
    else if (variant === 4) push(`${full} Unit 2, Cambridge, MA`);
    else if (variant === 5) push(`${full} Cambridge MA`);
    else if (m && variant === 6)
      push(`${Number(m[1]) + 1}${m[2]} ${m[3]}, Cambridge, MA`); // other side of the street
    else push(`${full}, Cambridge, MA`);
  }
  return out;
}
