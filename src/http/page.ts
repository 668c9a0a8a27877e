// The shared page chrome of every server-rendered page: the layout (skip link, header with the
// navigation, main, footer), the stylesheet, and the response headers (CSP) a page is sent with.
// Pages without a map run no script at all; map pages load only our own scripts (MapLibre from
// node_modules and the map script), never a CDN.
import type { Context } from 'hono';
import type { Config } from '../config.ts';
import { esc, html, type Html } from './html.ts';

/** Headers of a page that runs no script: no caching, no framing, nothing loaded from elsewhere. */
export const PAGE_HEADERS: Record<string, string> = {
  'cache-control': 'no-store',
  'x-frame-options': 'DENY',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
};

/**
 * The page headers with extra CSP form-action sources. Chromium applies form-action to every hop of a
 * form's redirect chain, so a form whose chain ends at another origin (the OAuth consent form ends at
 * the client's redirect_uri) must name that origin, and only that one.
 */
export function pageHeadersWithFormTargets(sources: string[]): Record<string, string> {
  return {
    ...PAGE_HEADERS,
    'content-security-policy': `default-src 'none'; style-src 'unsafe-inline'; form-action ${["'self'", ...sources].join(' ')}; frame-ancestors 'none'`,
  };
}

/** Headers of a page with a map: our own scripts and workers, tiles from this origin (and the basemap's, when configured). */
export function mapPageHeaders(config: Pick<Config, 'basemapUrl'>): Record<string, string> {
  const basemap = config.basemapUrl ? ` ${new URL(config.basemapUrl.replace(/[{}]/g, '')).origin}` : '';
  return {
    ...PAGE_HEADERS,
    'content-security-policy': [
      "default-src 'none'",
      "script-src 'self'",
      "worker-src 'self' blob:",
      "style-src 'self' 'unsafe-inline'",
      `img-src 'self' data: blob:${basemap}`,
      `connect-src 'self'${basemap}`,
      "form-action 'self'",
      "frame-ancestors 'none'",
    ].join('; '),
  };
}

export interface PageOptions {
  signedInAs?: string | null;
  /** A wide layout (the snapshot, coverage and map pages). */
  wide?: boolean;
  /** Extra elements for <head> (the map stylesheet and script). */
  head?: Html;
  /** Which navigation entry is the current page. */
  current?: 'sites' | 'coverage' | 'account' | 'agents' | 'projects' | 'map' | 'feedback';
}

const STYLE = `
*{box-sizing:border-box}
body{font:16px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:#1b1b1b;background:#fff}
a{color:#0b57d0}a:focus-visible,button:focus-visible,input:focus-visible,summary:focus-visible,[tabindex]:focus-visible{outline:3px solid #e37400;outline-offset:2px}
.skip{position:absolute;left:-999px;top:0;background:#fff;padding:.5rem}.skip:focus{left:.5rem;z-index:10}
.site-header{border-bottom:1px solid #ddd;background:#fafafa}
.site-header .bar{max-width:64rem;margin:0 auto;padding:.5rem 1rem;display:flex;flex-wrap:wrap;gap:.25rem 1rem;align-items:center;justify-content:space-between}
.brand{font-weight:700;color:inherit;text-decoration:none;font-size:1.1rem}
.site-header nav ul{list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:.25rem .9rem}
.site-header nav a[aria-current=page]{font-weight:700;color:#1b1b1b}
.who{color:#444;font-size:.9rem;overflow-wrap:anywhere}
main{max-width:34rem;margin:1.5rem auto;padding:0 1rem;overflow-wrap:break-word}
main a{overflow-wrap:anywhere}
body.wide main{max-width:64rem}
.site-footer{max-width:64rem;margin:3rem auto 1rem;padding:.75rem 1rem;border-top:1px solid #ddd;color:#555;font-size:.85rem}
h1{font-size:1.6rem;line-height:1.25;overflow-wrap:anywhere}
label{display:block;margin:.75rem 0 .25rem}input[type=email],input[type=password],input[type=text]{width:100%;padding:.5rem;font-size:1rem}
button{margin-top:1rem;padding:.5rem 1rem;font-size:1rem;cursor:pointer}
.error{color:#a40000;background:#fdecec;padding:.5rem .75rem;border-radius:4px}
.ok{color:#0a5b1f;background:#e8f6ec;padding:.5rem .75rem;border-radius:4px}
.note-box{background:#fff8e1;border-left:4px solid #c77700;padding:.5rem .75rem}
.code{font-size:1.6rem;letter-spacing:.3rem;width:10rem}
pre{white-space:pre-wrap;background:#f6f6f6;padding:.75rem;overflow-wrap:anywhere}
table{border-collapse:collapse;width:100%;font-size:.92rem}
th,td{text-align:left;vertical-align:top;border-bottom:1px solid #ddd;padding:.35rem .5rem;overflow-wrap:anywhere}
td p{margin:0 0 .4rem}
.table-scroll{overflow-x:auto}
.badge{display:inline-block;font-size:.78rem;line-height:1.3;padding:.05rem .4rem;border-radius:3px;border:1px solid;white-space:normal;max-width:100%;font-weight:600}
.badge-authoritative{background:#e6f4ea;border-color:#1e7b34;color:#0f5223}
.badge-indicative{background:#fff4e0;border-color:#a35c00;color:#6b3c00}
.badge-unknown{background:#f1f1f1;border-color:#666;color:#333}
.badge-nolimit{background:#e8f0fe;border-color:#1a56c4;color:#0d3a8a}
.cards{display:grid;gap:1rem;grid-template-columns:repeat(auto-fit,minmax(min(100%,18rem),1fr))}
.card{border:1px solid #ddd;border-radius:6px;padding:.75rem 1rem;background:#fff;min-width:0}
.card h2{margin-top:0;font-size:1.15rem}
dl.facts{display:grid;grid-template-columns:minmax(7rem,auto) 1fr;gap:.2rem .75rem;margin:0}
dl.facts dt{color:#444}dl.facts dd{margin:0;overflow-wrap:anywhere}
.map{width:100%;height:22rem;border:1px solid #ccc;border-radius:6px;background:#f5f4f0}
.map-legend{display:flex;flex-wrap:wrap;gap:.25rem .9rem;font-size:.85rem;list-style:none;padding:0;margin:.5rem 0}
.swatch{display:inline-block;width:.9rem;height:.9rem;border:1px solid #555;vertical-align:-.1rem;margin-right:.3rem}
.swatch-line{height:.25rem;vertical-align:.2rem}
.std{border-bottom:1px solid #e3e3e3;padding:.6rem 0}
.std h3{font-size:1rem;margin:0 0 .2rem}
.std .value{font-size:1.05rem;font-weight:600}
.std p{margin:.2rem 0}
ol.footnotes{font-size:.9rem;padding-left:1.5rem}ol.footnotes li{margin:.3rem 0;overflow-wrap:anywhere}
sup a{text-decoration:none}
details summary{cursor:pointer}
.rules-table th,.rules-table td,.rules-table a{overflow-wrap:normal;word-break:normal;hyphens:manual}
.rules-table tbody th{font-weight:600;width:28%}.rules-table .value{font-weight:600}
.rules-table blockquote{margin:0}
@media (max-width:40rem){.rules-table thead{position:absolute;left:-9999px}.rules-table tr,.rules-table tbody th,.rules-table td{display:block;width:auto}.rules-table tr{border-bottom:1px solid #ddd;padding:.4rem 0}.rules-table tbody th,.rules-table td{border:0;padding:.1rem 0}}
details.district{border:1px solid #ddd;border-radius:6px;padding:.5rem 1rem;margin:.5rem 0}
details.building-type{border-top:1px solid #e3e3e3;padding:.4rem 0 .4rem .5rem}
details.district>summary h3,details.building-type>summary h4{display:inline;font-size:1.05rem;margin:0}
.muted{color:#555;font-size:.9rem}
td.when,.nowrap{white-space:nowrap}
`;

function navItem(href: string, label: string, current: boolean): string {
  return `<li><a href="${href}"${current ? ' aria-current="page"' : ''}>${label}</a></li>`;
}

export function page(title: string, body: Html, opts: PageOptions = {}): string {
  const account = opts.signedInAs ? `<span class="who">Signed in as ${esc(opts.signedInAs)}</span>` : '';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>${esc(title)} · siteline</title>
<style>${STYLE}</style>
${opts.head?.value ?? ''}
</head>
<body${opts.wide ? ' class="wide"' : ''}>
<a class="skip" href="#content">Skip to content</a>
<header class="site-header"><div class="bar">
<a class="brand" href="/">siteline</a>
<nav aria-label="Main"><ul>
${navItem('/sites', 'Check an address', opts.current === 'sites')}
${opts.signedInAs ? navItem('/projects', 'Projects', opts.current === 'projects') : ''}
${navItem('/map', 'Map', opts.current === 'map')}
${navItem('/coverage', 'Coverage', opts.current === 'coverage')}
${navItem('/feedback', 'Feedback', opts.current === 'feedback')}
${navItem('/account', opts.signedInAs ? 'Your account' : 'Sign in', opts.current === 'account')}
</ul></nav>
${account}
</div></header>
<main id="content" tabindex="-1">
<h1>${esc(title)}</h1>
${body.value}
</main>
<footer class="site-footer">siteline: sourced site intelligence. Every value carries its provenance status; data comes from each city's open data, named on each page.
<a href="/coverage">Coverage and data vintages</a>.</footer>
</body>
</html>`;
}

/** A page as the answer (the cookies set on c go with it). */
export function htmlPage(c: Context, status: number, body: string, headers: Record<string, string> = {}): Response {
  return c.body(body, status as 200, { 'content-type': 'text/html; charset=utf-8', ...headers });
}

/** The answer to a form whose CSRF check failed. */
export function csrfFailure(c: Context): Response {
  return htmlPage(
    c,
    403,
    page(
      'Form expired',
      html`<p class="error">This form could not be verified (it expired or came from another site). Go back, reload the page and try again.</p>`,
    ),
    PAGE_HEADERS,
  );
}
