// The map's HTTP side: vector tiles at /tiles/{z}/{x}/{y}.pbf (public: geometry and district codes
// only, the same data each city publishes), and MapLibre GL JS plus our map script served from this
// origin out of node_modules (no CDN; works offline).
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import crypto from 'node:crypto';
import { createRequire } from 'node:module';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AppContext } from '../context.ts';
import type { NodeRoutes as Router } from '../http/node-routes.ts';
import { sendError } from '../http/respond.ts';
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

function acceptsGzip(req: IncomingMessage): boolean {
  return /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''));
}

function sendAsset(req: IncomingMessage, res: ServerResponse, a: StaticAsset, cacheControl: string): void {
  const headers: Record<string, string | number> = { 'content-type': a.type, etag: a.etag, 'cache-control': cacheControl, vary: 'accept-encoding', 'x-content-type-options': 'nosniff' };
  if (req.headers['if-none-match'] === a.etag) {
    res.writeHead(304, headers);
    res.end();
    return;
  }
  const gz = acceptsGzip(req);
  const body = gz ? a.gzipped : a.body;
  res.writeHead(200, { ...headers, ...(gz ? { 'content-encoding': 'gzip' } : {}), 'content-length': body.length });
  res.end(req.method === 'HEAD' ? undefined : body);
}

export function registerMapRoutes(router: Router, ctx: AppContext): void {
  router.get(TILE_ROUTE, async (req, res, params) => {
    const m = /^(\d+)\.pbf$/.exec(params.y ?? '');
    const key = m ? parseTileKey(params.z!, params.x!, m[1]!) : null;
    if (!key) return sendError(req, res, 404, 'not_found', 'No such tile: the form is /tiles/{z}/{x}/{y}.pbf with 0 <= z <= 16.');
    const tile = await cachedTile(ctx, key);
    const headers: Record<string, string | number> = {
      'content-type': 'application/vnd.mapbox-vector-tile',
      'cache-control': 'public, max-age=3600',
      etag: tile.etag,
      vary: 'accept-encoding',
      'access-control-allow-origin': '*',
    };
    if (req.headers['if-none-match'] === tile.etag) {
      res.writeHead(304, headers);
      return res.end();
    }
    // Tiles are stored gzipped; the rare client that refuses gzip gets them inflated.
    const gz = acceptsGzip(req) || tile.gzipped.length === 0;
    const body = gz ? tile.gzipped : zlib.gunzipSync(tile.gzipped);
    res.writeHead(200, { ...headers, ...(gz && body.length ? { 'content-encoding': 'gzip' } : {}), 'content-length': body.length });
    res.end(req.method === 'HEAD' ? undefined : body);
  });

  const maplibre = Object.fromEntries(Object.entries(MAPLIBRE_FILES).map(([f, type]) => [f, staticAsset(path.join(MAPLIBRE_DIST, f), type)]));
  router.get('/assets/maplibre-gl/:file', async (req, res, params) => {
    const asset = maplibre[params.file!];
    if (!asset) return sendError(req, res, 404, 'not_found', 'No such asset.');
    sendAsset(req, res, asset(), 'public, max-age=86400');
  });
  // Browsers ask for it on every site; no icon yet, and no 404 in every page's console.
  router.get('/favicon.ico', async (_req, res) => {
    res.writeHead(204, { 'cache-control': 'public, max-age=86400' });
    res.end();
  });
  const mapScript = staticAsset(path.join(import.meta.dirname, 'assets/site-map.js'), 'text/javascript; charset=utf-8');
  router.get('/assets/site-map.js', async (req, res) => sendAsset(req, res, mapScript(), 'public, max-age=3600'));
  // The project page's editor: clicks on its map select a lot for the attach form (src/web/project-editor.ts).
  const editorScript = staticAsset(path.join(import.meta.dirname, 'assets/project-editor.js'), 'text/javascript; charset=utf-8');
  router.get('/assets/project-editor.js', async (req, res) => sendAsset(req, res, editorScript(), 'public, max-age=3600'));
}
