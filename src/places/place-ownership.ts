// Which places this instance owns (docs/scaling.md, "Instances own places"). An instance keeps hot
// indexes only for the places it owns; it still answers every other place, through SQL (the same
// statements, the same answers), and never loads it. Routing by place (docs/deploy.md) sends each place's
// requests to its owners, so the places' indexes are spread over the instances instead of every instance
// loading whatever it is asked about. Ownership is for memory and latency, never for correctness.
//
// Two ways to say it (src/config.ts):
//   - named: SITELINE_PLACES=cambridge-ma,somerville-ma (slugs or place ids);
//   - hashed: SITELINE_INSTANCE=web2 SITELINE_INSTANCES=web1,web2,web3: a place is owned by the
//     SITELINE_OWNERS_PER_PLACE instances (default 1) with the highest rendezvous hash of (instance, place
//     id). Adding or removing an instance moves only the places it gains or held (about 1/n of them), and
//     every instance (and scripts/place-routes.ts, which writes the proxy's map) computes the same table.
import crypto from 'node:crypto';
import type { PlaceOwnershipConfig } from '../config.ts';

/** What ownership needs of a place: its id, and its slug when the caller has it. */
export interface OwnedPlace {
  geoDivisionId: string;
  slug?: string;
}

/** Rendezvous (highest random weight) score of an instance for a place: the first 8 bytes of SHA-256. */
function score(instance: string, placeId: string): bigint {
  return crypto.createHash('sha256').update(`${instance}\u0000${placeId}`).digest().readBigUInt64BE(0);
}

/** The instances owning a place, best first: the `owners` highest scores (ties by name, so every process agrees). */
export function placeOwners(placeId: string, instances: readonly string[], owners = 1): string[] {
  return instances
    .map((name) => ({ name, s: score(name, placeId) }))
    .sort((a, b) => (a.s === b.s ? (a.name < b.name ? -1 : 1) : a.s > b.s ? -1 : 1))
    .slice(0, Math.max(1, owners))
    .map((x) => x.name);
}

/** A predicate: does this instance own the place? Every place when no ownership is configured. */
export function placeOwnership(config: PlaceOwnershipConfig | undefined): (place: OwnedPlace) => boolean {
  if (!config) return () => true;
  if (config.kind === 'named') {
    const named = new Set(config.places);
    return (p) => named.has(p.geoDivisionId) || (p.slug !== undefined && named.has(p.slug));
  }
  const memo = new Map<string, boolean>();
  return (p) => {
    let owned = memo.get(p.geoDivisionId);
    if (owned === undefined) {
      owned = placeOwners(p.geoDivisionId, config.instances, config.ownersPerPlace).includes(config.instance);
      memo.set(p.geoDivisionId, owned);
    }
    return owned;
  };
}

/** One line for the start's log: what this instance owns. */
export function describeOwnership(config: PlaceOwnershipConfig | undefined): string {
  if (!config) return 'every place';
  if (config.kind === 'named') return `the places ${config.places.join(', ')} (SITELINE_PLACES)`;
  return `its share of the places hashed over ${config.instances.join(', ')} as ${config.instance}, ${config.ownersPerPlace} owner${config.ownersPerPlace === 1 ? '' : 's'} a place`;
}

/**
 * The proxy's map (docs/deploy.md, "Routing by place"): one line per key a request may name a place by (its
 * slug and its place id) and the backend of its owners, `<key> <first owner>`. haproxy's map file format.
 */
export function placeRouteMap(places: readonly { slug: string; geoDivisionId: string }[], instances: readonly string[], owners = 1): string {
  const lines: string[] = [];
  for (const p of [...places].sort((a, b) => (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0))) {
    const backend = placeOwners(p.geoDivisionId, instances, owners)[0]!;
    lines.push(`${p.slug} ${backend}`, `${p.geoDivisionId} ${backend}`);
  }
  return `${lines.join('\n')}\n`;
}
