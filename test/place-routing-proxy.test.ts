// Routing by place (docs/deploy.md, "Routing by place"): the documented haproxy configuration with its
// routing lines, in front of two real instances that own places by the routing table (SITELINE_INSTANCE
// within SITELINE_INSTANCES), with the map scripts/place-routes.ts writes. A request that names its place
// (a coverage page, a place's sources, ?geoDivisionId=) reaches the place's owner, and the owner the map
// names is the one the instances themselves compute; a request that names no known place goes round-robin.
// haproxy's access log names the backend and server of each request. .ci/run installs haproxy.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { startTestServer, type TestServer } from './support/harness.ts';
import { haproxyInstalled, startHaproxy } from './support/haproxy.ts';
import { placeOwners, placeRouteMap } from '../src/places/place-ownership.ts';
import { hotIndexOf } from '../src/geocoder/place-index.ts';
import { REPO_PLACES_DIR } from '../src/config.ts';
import { listManifestSlugs, manifestPath, parseManifest } from '../src/places/manifest.ts';

const HOST = 'siteline.example.com';
const INSTANCES = ['web1', 'web2'];

function viaProxy(base: string, p: string): Promise<number> {
  const u = new URL(base);
  return new Promise((resolve, reject) => {
    const req = https.request(
      { host: u.hostname, port: u.port, path: p, method: 'GET', servername: HOST, rejectUnauthorized: false, agent: false, headers: { host: HOST } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

test('the documented proxy sends a request naming its place to the instance that owns it; others go round-robin', {
  skip: !haproxyInstalled() && 'haproxy is not installed (apt-get install haproxy; .ci/run does)',
  timeout: 300_000,
}, async () => {
  const places = listManifestSlugs(REPO_PLACES_DIR).map((slug) => parseManifest(fs.readFileSync(manifestPath(slug, REPO_PLACES_DIR), 'utf8'), slug));
  const ownerOf = (id: string) => placeOwners(id, INSTANCES)[0]!;
  const byOwner = new Set(places.map((p) => ownerOf(p.geoDivisionId)));
  assert.deepEqual([...byOwner].sort(), INSTANCES, 'the repository places have an owner on each instance (the test routes to both)');
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'siteline-routing-'));
  const map = path.join(work, 'place-owners.map');
  fs.writeFileSync(map, placeRouteMap(places, INSTANCES));
  const emptyPlaces = path.join(work, 'places');
  fs.mkdirSync(emptyPlaces);
  const servers: TestServer[] = [];
  let proxy: Awaited<ReturnType<typeof startHaproxy>> | undefined;
  try {
    for (const name of INSTANCES) {
      servers.push(
        await startTestServer({
          env: { SITELINE_INSTANCE: name, SITELINE_INSTANCES: INSTANCES.join(',') },
          // no place of its own to load: /readyz is 200 once the database answers (the proxy only needs them up)
          config: { baseUrl: `https://${HOST}`, trustedProxies: ['127.0.0.1/32'], placesDir: emptyPlaces },
          analysisWorkers: { concurrency: 0 },
        }),
      );
    }
    // the instances compute the map's owners themselves
    for (const p of places) {
      INSTANCES.forEach((name, i) =>
        assert.equal(
          hotIndexOf(servers[i]!.ctx).owns({ geoDivisionId: p.geoDivisionId, slug: p.slug }),
          ownerOf(p.geoDivisionId) === name,
          `${p.slug} on ${name}`,
        ),
      );
    }
    const ports = servers.map((s) => Number(new URL(s.url).port)) as [number, number];
    proxy = await startHaproxy(path.join(work, 'haproxy'), ports, map);
    await proxy.waitForServers({ web1: 'UP', web2: 'UP' });
    const routedTo = async (p: string): Promise<string> => {
      const before = proxy!.lines.length;
      await viaProxy(proxy!.url, p);
      const logged = path.posix.normalize(p.split('?')[0]!);
      for (let i = 0; i < 50; i++) {
        const line = proxy!.lines.slice(before).find((l) => l.endsWith(` GET ${logged}`));
        if (line) return / (\S+)\/(\S+) \d/.exec(line)![1]!; // %b/%s: the backend
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`no access log line for ${p}:\n${proxy!.lines.slice(before).join('\n')}`);
    };
    for (const p of places) {
      const owner = ownerOf(p.geoDivisionId);
      assert.equal(await routedTo(`/coverage/${p.slug}`), owner, `/coverage/${p.slug}`);
      assert.equal(await routedTo(`/coverage/${p.slug}/changes.json`), owner);
      assert.equal(await routedTo(`/places/${p.slug}/sources.json`), owner);
      assert.equal(await routedTo(`/api/v1/coverage?geoDivisionId=${encodeURIComponent(p.geoDivisionId)}`), owner, `?geoDivisionId=${p.geoDivisionId}`);
    }
    // no place named, or one the map does not know: the round-robin backend
    assert.equal(await routedTo('/coverage'), 'siteline');
    assert.equal(await routedTo('/coverage/nowhere-zz'), 'siteline');
    assert.equal(await routedTo('/sites?address=57%20Inman%20St%2C%20Cambridge%2C%20MA'), 'siteline');
  } finally {
    await proxy?.stop();
    for (const s of servers) await s.close();
    fs.rmSync(work, { recursive: true, force: true });
  }
});
