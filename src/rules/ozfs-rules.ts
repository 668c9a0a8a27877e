// Turns an OZFS 0.5 .zoning file (Open Zoning Feed Specification) into district rules at load time.
// Units per the OZFS spec: setbacks, heights, lot width/depth in ft; lot_area/lot_size in acres;
// unit_density in units per acre; lot_cov_bldg in percent. A constraint with one unconditional
// numeric value is a value; anything with conditions or formulas becomes tiers, resolved per lot.
// A feed is an encoding of the ordinance, not its words: no feed value is `cited` (nothing in the
// feed can be verified against the bylaw's text), so every value is unverified_default with a note
// naming the feed, its constraint and its date; a residential type the feed does not list is
// not_extracted (the feed's silence is not a prohibition read from the bylaw).
import { z } from 'zod';
import type { DistrictRules, RuleTier, RuleValue, StandardKey, UseRule } from '../core/rules-schema.ts';

const stringOrList = z.union([z.string(), z.array(z.string())]);
const ozfsValueSchema = z.object({
  condition: stringOrList.optional(),
  expression: stringOrList,
  min_max: z.enum(['min', 'max']).optional(),
});
const ozfsConstraintSchema = z.object({
  min_val: z.array(ozfsValueSchema).optional(),
  max_val: z.array(ozfsValueSchema).optional(),
});
export const ozfsZoningSchema = z.object({
  type: z.literal('FeatureCollection'),
  version: z.string(),
  muni_name: z.string(),
  date: z.string(),
  features: z.array(
    z.object({
      properties: z.object({
        dist_abbr: z.string().min(1),
        dist_name: z.string().min(1),
        res_types_allowed: stringOrList.optional(),
        constraints: z.record(z.string(), ozfsConstraintSchema).optional(),
      }),
    }),
  ),
});
export type OzfsZoning = z.infer<typeof ozfsZoningSchema>;

/** OZFS constraint (and bound) -> our standard, with the factor from OZFS units to ours. */
const CONSTRAINT_MAP: Record<string, { bound: 'min_val' | 'max_val'; key: StandardKey; scale?: number }> = {
  lot_area: { bound: 'min_val', key: 'minLotAreaSqft', scale: 43560 },
  lot_size: { bound: 'min_val', key: 'minLotAreaSqft', scale: 43560 },
  lot_width: { bound: 'min_val', key: 'minLotWidthFt' },
  lot_depth: { bound: 'min_val', key: 'minLotDepthFt' },
  setback_front: { bound: 'min_val', key: 'minFrontYardFt' },
  setback_side_int: { bound: 'min_val', key: 'minSideYardFt' },
  setback_side_ext: { bound: 'min_val', key: 'minStreetSideYardFt' },
  setback_rear: { bound: 'min_val', key: 'minRearYardFt' },
  lot_cov_bldg: { bound: 'max_val', key: 'maxLotCoveragePct' },
  height: { bound: 'max_val', key: 'maxHeightFt' },
  stories: { bound: 'max_val', key: 'maxHeightStoreys' },
  far: { bound: 'max_val', key: 'maxFar' },
  unit_density: { bound: 'max_val', key: 'maxDensityUnitsPerAcre' },
  total_units: { bound: 'max_val', key: 'maxUnitsPerLot' },
};

/** The residential types OZFS names (res_type). */
export const OZFS_RES_TYPES = ['1_unit', '2_unit', '3_unit', '4_plus', 'townhome'] as const;

const list = (v: string | string[] | undefined): string[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

export interface OzfsSource {
  file: string;
  sourceUrl: string;
  date: string;
  note: string;
}

export function ozfsToDistricts(doc: OzfsZoning, src: OzfsSource): Record<string, DistrictRules> {
  const out: Record<string, DistrictRules> = {};
  for (const f of doc.features) {
    const p = f.properties;
    const standards: Partial<Record<StandardKey, RuleValue>> = {};
    const unmapped: string[] = [];
    for (const [name, c] of Object.entries(p.constraints ?? {})) {
      const target = CONSTRAINT_MAP[name];
      for (const bound of ['min_val', 'max_val'] as const) {
        const entries = c[bound];
        if (!entries) continue;
        if (!target || target.bound !== bound) {
          unmapped.push(`${name}.${bound}`);
          continue;
        }
        const where = `${src.note} Feed constraint ${p.dist_abbr} ${name}.${bound}: ${JSON.stringify(entries)}.`;
        const note = target.scale ? `${where} The feed states acres; shown in sq ft (x ${target.scale}).` : where;
        const only = entries[0];
        const onlyExpr = only && list(only.expression);
        if (entries.length === 1 && only && list(only.condition).length === 0 && onlyExpr?.length === 1 && /^\s*\d+(\.\d+)?\s*$/.test(onlyExpr[0]!)) {
          standards[target.key] = { status: 'unverified_default', value: Math.round(Number(onlyExpr[0]) * (target.scale ?? 1) * 100) / 100, note };
          continue;
        }
        const tiers: RuleTier[] = entries.map((e) => ({
          when: list(e.condition),
          values: list(e.expression),
          ...(e.min_max ? { pick: e.min_max } : {}),
        }));
        standards[target.key] = { status: 'unverified_default', tiers, note, ...(target.scale ? { scale: target.scale } : {}) };
      }
    }
    const uses: UseRule[] = [];
    const allowed = p.res_types_allowed === undefined ? null : list(p.res_types_allowed);
    for (const t of OZFS_RES_TYPES) {
      if (allowed?.includes(t))
        uses.push({
          use: `residential:${t}`,
          permission: 'as_of_right',
          status: 'unverified_default',
          note: `Listed in the OZFS res_types_allowed of ${p.dist_abbr}; the feed records no approval procedure. ${src.note}`,
        });
      else
        uses.push({
          use: `residential:${t}`,
          permission: 'unknown',
          status: 'not_extracted',
          note:
            allowed === null
              ? 'The OZFS feed lists no residential types for this district.'
              : `Not in the OZFS res_types_allowed of ${p.dist_abbr}; whether the ordinance allows it was not read.`,
        });
    }
    uses.push({ use: 'non-residential uses', permission: 'unknown', status: 'not_extracted', note: 'OZFS 0.5 encodes residential types only.' });
    const notes = [src.note];
    if (!p.constraints || Object.keys(p.constraints).length === 0) notes.push('The OZFS feed encodes no dimensional constraints for this district.');
    if (unmapped.length) notes.push(`OZFS constraints not mapped to an envelope member: ${unmapped.join(', ')}.`);
    out[p.dist_abbr] = {
      name: p.dist_name,
      note: notes.join(' '),
      standards,
      otherStandards: { status: 'not_extracted', note: 'The OZFS feed encodes no such constraint for this district.' },
      uses,
    };
  }
  return out;
}
