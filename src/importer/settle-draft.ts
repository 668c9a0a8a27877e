// `siteline data init`, after the draft is written: the draft is checked exactly as `data check` will
// check it (check-joins.ts), so init writes what check accepts or says why not. Each layer's rows and
// features are recorded (`counts`: the shrink check of later updates); a share of rejected rows above
// the default is written as the measured figure (a zoning file with unzoned pieces: roads, water) and
// listed under Confirm; any other refusal, and joins below the thresholds, are listed under Confirm.
import { parseManifest } from '../places/manifest.ts';
import { checkManifestJoins } from './check-joins.ts';
import { pc } from './inspect-source.ts';

type RawSource = Record<string, unknown> & { id: string };

/** Mutates the drafted manifest (counts, measured settings) and returns the lines to confirm. */
export async function settleDraft(manifest: Record<string, unknown>, opts: { dir: string; placesDir: string }): Promise<{ confirm: string[] }> {
  const confirm: string[] = [];
  let check: Awaited<ReturnType<typeof checkManifestJoins>>['check'];
  try {
    ({ check } = await checkManifestJoins(parseManifest(JSON.stringify(manifest), 'the drafted manifest'), { sourceDir: opts.dir, placesDir: opts.placesDir }));
  } catch (e) {
    confirm.push(`data check cannot read the drafted place yet: ${(e as Error).message.split('\n')[0]}`);
    return { confirm };
  }
  const sources = manifest['sources'] as RawSource[];
  for (const s of sources) {
    const r = check.sources.find((x) => x.id === s.id);
    if (r) s['counts'] = { rows: r.rowsRead, features: r.rowsLoaded };
  }
  for (const refusal of check.verdict.refusals) {
    const setting = /^sources\[([^\]]+)\]\.maxRejectedShare$/.exec(refusal.setting);
    const s = setting ? sources.find((x) => x.id === setting[1]) : undefined;
    const r = s ? check.sources.find((x) => x.id === s.id) : undefined;
    if (s && r && r.rowsRead > 0) {
      const share = r.rowsRejected / r.rowsRead;
      const written = Math.min(1, Math.ceil(share * 100 + 1) / 100);
      s['maxRejectedShare'] = written;
      const most = r.rejects[0] ? `; most: ${r.rejects[0].count} x ${r.rejects[0].reason}` : '';
      confirm.push(
        `sources[${s.id}].maxRejectedShare written as ${written}, measured: ${r.rowsRejected} of ${r.rowsRead} rows of ${String(s['file'])} rejected (${pc(r.rowsRejected, r.rowsRead)}${most}), above the default ${refusal.value.split(' ')[0]}: confirm these rows are not ${s['id'] === 'zoning' ? 'districts (roads, water, unzoned land)' : 'needed'}`,
      );
    } else if (!/placeholder/.test(refusal.problem)) confirm.push(`data check would refuse: ${refusal.problem} [${refusal.setting} = ${refusal.value}]`);
  }
  if (check.verdict.gate && !check.verdict.gate.passed)
    confirm.push(`data check: the joins are below the thresholds, the place would stay planned_not_live: ${check.verdict.gate.problems.join('; ')}`);
  return { confirm };
}
