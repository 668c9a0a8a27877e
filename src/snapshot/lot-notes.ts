// The sentences a snapshot's lot section carries where its lot departs from the obvious reading of the
// written definitions (docs/lot-metrics.md): a lot with faces on two streets that is not a corner lot,
// and a cul-de-sac lot whose frontage and depth the dead-end rule measured. Built from the lot facts
// the import recorded (src/core/geo/lot-facts.ts), so every surface says the same.
import { displayStreet } from '../geocoder/street-key.ts';
import { FT_PER_M } from '../core/geo/primitives.ts';
import type { NotCorner } from '../core/geo/lot-facts.ts';

/** What the import records for such lots (parcels.facts.notCorner), as the notes read it. */
export type NotCornerFacts = NotCorner;

const ft = (m: number) => Math.round(m * FT_PER_M).toLocaleString('en-US');

/**
 * Why a lot facing two streets is not a corner lot, in one sentence naming the rule's threshold; null
 * when the facts record nothing (a corner lot, a lot on one street, facts from an older import).
 */
export function notCornerNote(f: NotCornerFacts | undefined): string | null {
  if (!f || !Array.isArray(f.streets) || f.streets.length !== 2) return null;
  const [a, b] = f.streets.map(displayStreet) as [string, string];
  const within = `${ft(f.meetWithinM)} ft`;
  if (f.reason === 'through_lot') {
    return `Faces ${a} and ${b} on opposite sides: a through lot, not a corner lot (its street faces come no closer than ${ft(f.gapM)} ft, and a corner lot's must meet, within ${within}; docs/lot-metrics.md).`;
  }
  if (f.reason === 'streets_do_not_turn') {
    return `Faces ${a} and ${b}, but is not a corner lot: its two street faces meet, but the streets turn by only ${f.turnDeg}° there (a corner needs at least ${f.minTurnDeg}°, an interior angle of at most ${180 - f.minTurnDeg}°; docs/lot-metrics.md).`;
  }
  const turn = f.turnDeg < f.minTurnDeg ? `; and the streets turn by only ${f.turnDeg}° as the lot sees them, where a corner needs ${f.minTurnDeg}°` : '';
  return `Faces ${a} and ${b}, but is not a corner lot: its two street faces come no closer than ${ft(f.gapM)} ft (a corner lot's must meet, within ${within}${turn}; docs/lot-metrics.md).`;
}

/**
 * The rule that measured a front found partly or wholly by the dead-end rule (a lot around a
 * cul-de-sac's bulb): for the frontage and for the depth. Null for an ordinary front.
 */
export function bulbNotes(front: { frontageM: number; bulbM?: number } | undefined, streetKey: string): { frontage: string; depth: string } | null {
  if (!front || typeof front.bulbM !== 'number' || !(front.bulbM > 0)) return null;
  const street = displayStreet(streetKey);
  const all = front.bulbM >= front.frontageM - 0.01;
  return {
    frontage: all
      ? `Measured along the lot line around the end of ${street} (a cul-de-sac's bulb): the length of the curved street edge, not the chord across it (docs/lot-metrics.md).`
      : `Measured along the lot line; ${ft(front.bulbM)} ft of it curves around the end of ${street} (a cul-de-sac's bulb) and is measured along the arc, not the chord (docs/lot-metrics.md).`,
    depth: all
      ? `The lot's deepest extent across the direction of its front, which around the end of ${street} is the bulb's tangent (docs/lot-metrics.md).`
      : `The lot's deepest extent across the direction of its front: the street's direction along it, weighted by length with the bulb's tangent around the end of ${street} (docs/lot-metrics.md).`,
  };
}

/** A lot in a place without street centrelines: why it is (not) known to be a corner lot (docs/lot-geometry.md). */
export function unsharedCornerNote(sides: number, placeName: string): string {
  return sides === 1
    ? `Not a corner lot by its geometry: only one side of the lot is not shared with another lot, and a corner lot borders streets on two (no street centrelines are held for ${placeName}).`
    : `Not known: whether a lot is a corner lot is read from the street centrelines, and no street centrelines are held for ${placeName}.`;
}
