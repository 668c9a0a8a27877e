// The map's HTTP side: vector tiles at /tiles/{z}/{x}/{y}.pbf (public: geometry and district codes
// only, the same data each city publishes), and MapLibre GL JS plus our map script served from this
// origin out of node_modules (no CDN; works offline).
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import crypto from 'node:crypto';
import { createRequire } from 'node:module';
import type { HttpContext } from '../http/http-app.ts';
import type { AppContext } from '../context.ts';
import type { HttpApp } from '../http/http-app.ts';
import { errorReply } from '../http/reply.ts';
import { cachedTile } from '../maps/tiles.ts';
import { parseTileKey } from '../maps/tile-math.ts';

export const TILE_ROUTE = '/tiles/:z/:x/:y';

const MAPLIBRE_DIST = path.dirname(createRequire(import.meta.url).resolve('maplibre-gl/dist/maplibre-gl.css'));
/** The only files served from MapLibre's dist folder. */
const MAPLIBRE_FILES: Record<string, string> = {
  'maplibre-gl.mjs': 'text/javascript; charset=utf-8',
  'maplibre-gl-worker.mjs': 'text/javascript; charset=utf-8',
  'maplibre-gl.css': 'text/css; charset=utf-8',
};

interface StaticAsset {
  body: Buffer;
  gzipped: Buffer;
  type: string;
  etag: string;
}

/** A file read and compressed once, on first request. */
function staticAsset(file: string, type: string): () => StaticAsset {
  let asset: StaticAsset | undefined;
  return () => {
    if (!asset) {
      const body = fs.readFileSync(file);
      asset = { body, gzipped: zlib.gzipSync(body), type, etag: `"${crypto.createHash('sha256').update(body).digest('base64url').slice(0, 22)}"` };
    }
    return asset;
  };
}

function acceptsGzip(c: HttpContext): boolean {
  return /\bgzip\b/.test(String(c.env.incoming.headers['accept-encoding'] ?? ''));
}

/** A file or tile with plain headers (a HEAD gets the same headers without the body: hono answers it as the GET). */
function bytes(status: number, body: Buffer | null, headers: Record<string, string>): Response {
  return new Response(body as ConstructorParameters<typeof Response>[0], { status, headers });
}

function sendAsset(c: HttpContext, a: StaticAsset, cacheControl: string): Response {
  const headers: Record<string, string> = {
    'content-type': a.type,
    etag: a.etag,
    'cache-control': cacheControl,
    vary: 'accept-encoding',
    'x-content-type-options': 'nosniff',
  };
  if (c.env.incoming.headers['if-none-match'] === a.etag) return bytes(304, null, headers);
  const gz = acceptsGzip(c);
  const body = gz ? a.gzipped : a.body;
  return bytes(200, body, { ...headers, ...(gz ? { 'content-encoding': 'gzip' } : {}), 'content-length': String(body.length) });
}

export function registerMapRoutes(app: HttpApp, ctx: AppContext): void {
  app.pages.get(TILE_ROUTE, async (c) => {
    const m = /^(\d+)\.pbf$/.exec(c.req.param('y') ?? '');
    const key = m ? parseTileKey(c.req.param('z')!, c.req.param('x')!, m[1]!) : null;
    if (!key) return errorReply(c, 404, 'not_found', 'No such tile: the form is /tiles/{z}/{x}/{y}.pbf with 0 <= z <= 16.');
    const tile = await cachedTile(ctx, key);
    const headers: Record<string, string> = {
      'content-type': 'application/vnd.mapbox-vector-tile',
      'cache-control': 'public, max-age=3600',
      etag: tile.etag,
      vary: 'accept-encoding',
      'access-control-allow-origin': '*',
    };
    if (c.env.incoming.headers['if-none-match'] === tile.etag) return bytes(304, null, headers);
    // Tiles are stored gzipped; the rare client that refuses gzip gets them inflated.
    const gz = acceptsGzip(c) || tile.gzipped.length === 0;
    const body = gz ? tile.gzipped : zlib.gunzipSync(tile.gzipped);
    return bytes(200, body, { ...headers, ...(gz && body.length ? { 'content-encoding': 'gzip' } : {}), 'content-length': String(body.length) });
  });

  const maplibre = Object.fromEntries(Object.entries(MAPLIBRE_FILES).map(([f, type]) => [f, staticAsset(path.join(MAPLIBRE_DIST, f), type)]));
  app.pages.get('/assets/maplibre-gl/:file', async (c) => {
    const asset = maplibre[c.req.param('file')!];
    if (!asset) return errorReply(c, 404, 'not_found', 'No such asset.');
    return sendAsset(c, asset(), 'public, max-age=86400');
  });
  // Browsers ask for it on every site; no icon yet, and no 404 in every page's console.
  app.pages.get('/favicon.ico', async () => bytes(204, null, { 'cache-control': 'public, max-age=86400' }));
  const mapScript = staticAsset(path.join(import.meta.dirname, 'assets/site-map.js'), 'text/javascript; charset=utf-8');
  app.pages.get('/assets/site-map.js', async (c) => sendAsset(c, mapScript(), 'public, max-age=3600'));
  // The project page's editor: clicks on its map select a lot for the attach form (src/web/project-editor.ts).
  const foldScript = staticAsset(path.join(import.meta.dirname, 'assets/page-folds.js'), 'text/javascript; charset=utf-8');
  app.pages.get('/assets/page-folds.js', async (c) => sendAsset(c, foldScript(), 'public, max-age=3600'));
  const editorScript = staticAsset(path.join(import.meta.dirname, 'assets/project-editor.js'), 'text/javascript; charset=utf-8');
  app.pages.get('/assets/project-editor.js', async (c) => sendAsset(c, editorScript(), 'public, max-age=3600'));
}
