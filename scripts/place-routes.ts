// Writes the proxy's place map (docs/deploy.md, "Routing by place") to stdout: for every place of the places
// directory (SITELINE_PLACES_DIR, default the repository's places/), its slug and its place id, each with the
// instance that owns it by the same rendezvous hash the instances compute (SITELINE_INSTANCES,
// SITELINE_OWNERS_PER_PLACE; src/places/place-ownership.ts). Run it again when the instances change.
//   SITELINE_INSTANCES=web1,web2 node --import tsx scripts/place-routes.ts > /etc/haproxy/place-owners.map
import fs from 'node:fs';
import { placesDirFromEnv } from '../src/config.ts';
import { listManifestSlugs, manifestPath, parseManifest } from '../src/places/manifest.ts';
import { placeRouteMap } from '../src/places/place-ownership.ts';

const instances = (process.env['SITELINE_INSTANCES'] ?? '')
  .split(',')
  .map((s) => s.trim())
  .filter(Boolean);
if (instances.length === 0) {
  console.error('SITELINE_INSTANCES: required (the routing table: every instance, comma-separated, as the instances are given it)');
  process.exit(2);
}
const owners = Number(process.env['SITELINE_OWNERS_PER_PLACE'] ?? 1);
const dir = placesDirFromEnv();
const places = listManifestSlugs(dir).map((slug) => {
  const m = parseManifest(fs.readFileSync(manifestPath(slug, dir), 'utf8'), manifestPath(slug, dir));
  return { slug: m.slug, geoDivisionId: m.geoDivisionId };
});
process.stdout.write(placeRouteMap(places, instances, owners));
