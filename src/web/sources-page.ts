// GET /sources/<place>/<doc> (public): a document a place holds, as the service holds it. With
// ?section=<§> the section's own words, and with &quote=<words> the quote highlighted in them, so a
// reader can check a citation against the text without trusting the service's summary. Without a
// section: what the document is (title, edition, retrieval, licence, sha256) and the sections its
// citations quote.
import type { AppContext } from '../context.ts';
import type { HttpApp, HttpContext } from '../http/http-app.ts';
import { htmlPage } from '../http/page.ts';
import { loadManifest } from '../places/manifest.ts';
import { citableDocuments, loadPlaceRules, sourcePageHref } from '../rules/load-rules.ts';
import { findQuote, findSection, heldDocuments, sectionSpan, DocumentError } from '../rules/held-documents.ts';
import { knowledgeSectionsOf } from '../rules/knowledge-sections.ts';
import { html, type Html } from '../http/html.ts';
import { page, PAGE_HEADERS } from '../http/page.ts';
import { currentAccount } from './web-session.ts';
import path from 'node:path';

const SLUG = /^[a-z0-9-]{1,60}$/;

function notFound(c: HttpContext, what: string, signedInAs: string | null): Response {
  return htmlPage(c, 404, page('Not found', html`<p>${what}</p><p><a href="/coverage">What siteline covers</a></p>`, { signedInAs }), PAGE_HEADERS);
}

/** The section's text with the quote's parts wrapped in <mark> (offsets mapped from the normalised text back to the original). */
function highlighted(text: string, marks: [number, number][]): Html {
  const parts: (string | Html)[] = [];
  let at = 0;
  marks.forEach(([a, b], i) => {
    parts.push(text.slice(at, a));
    parts.push(i === 0 ? html`<mark id="quote">${text.slice(a, b)}</mark>` : html`<mark>${text.slice(a, b)}</mark>`);
    at = b;
  });
  parts.push(text.slice(at));
  return html`${parts}`;
}

export function registerSourcesPage(app: HttpApp, ctx: AppContext): void {
  app.pages.get('/sources/:place/:doc', async (c) => {
    const account = await currentAccount(ctx, c);
    const signedInAs = account?.email ?? null;
    const place = c.req.param('place') ?? '';
    const docId = c.req.param('doc') ?? '';
    if (!SLUG.test(place) || !SLUG.test(docId)) return notFound(c, 'No such document.', signedInAs);
    let manifest;
    try {
      manifest = loadManifest(place, ctx.config.placesDir);
    } catch {
      return notFound(c, `No place "${place}".`, signedInAs);
    }
    const decl = citableDocuments(manifest).find((d) => d.id === docId);
    if (!decl) return notFound(c, `${manifest.name} holds no document "${docId}".`, signedInAs);
    if (!ctx.config.sourceDir) return notFound(c, 'This server has no source directory configured, so it holds no document text.', signedInAs);
    let doc;
    try {
      doc = await heldDocuments(ctx).read(path.join(ctx.config.sourceDir, manifest.sourceFolder), decl);
    } catch (err) {
      if (!(err instanceof DocumentError)) throw err;
      ctx.logger.warn({ place, document: docId, err: err.message }, 'held document unreadable');
      return htmlPage(
        c,
        503,
        page('Document unavailable', html`<p>The held copy of ${decl.title} cannot be read or has changed on this server: ${err.message}</p>`, { signedInAs }),
        PAGE_HEADERS,
      );
    }
    const url = new URL(c.req.url);
    const sectionParam = url.searchParams.get('section');
    const quote = url.searchParams.get('quote');
    const about = html`<dl class="facts">
<dt>Document</dt><dd>${decl.title} <span class="muted">(${decl.id})</span></dd>
<dt>Edition</dt><dd>${decl.edition}</dd>
<dt>Retrieved</dt><dd>${decl.retrieved}</dd>
<dt>Published at</dt><dd><a href="${decl.url}" rel="noopener">${decl.url}</a></dd>
<dt>Licence</dt><dd>${decl.licence}</dd>
<dt>sha256 of the held copy</dt><dd><code style="overflow-wrap:anywhere">${decl.sha256}</code></dd>
</dl>`;
    if (!sectionParam) {
      let cited: { section: string; title: string; href: string; districts: string[] }[] = [];
      try {
        const rules = await loadPlaceRules(ctx, place);
        cited = knowledgeSectionsOf(rules).filter((s) => s.document === decl.id);
      } catch (err) {
        ctx.logger.warn({ place, err: (err as Error).message }, 'sources page: rules do not load');
      }
      const body = html`${about}
<h2>Sections its citations quote</h2>
${cited.length ? html`<ul>${cited.map((s) => html`<li><a href="${s.href}">${s.title}</a> <span class="muted">(districts ${s.districts.join(', ')})</span></li>`)}</ul>` : html`<p>No value cites this document.</p>`}
<p class="muted">Every cited value's quote was found in the section it names of this copy, by machine, when the rules were loaded (siteline rules verify).</p>`;
      return htmlPage(c, 200, page(decl.title, body, { signedInAs, wide: true }), PAGE_HEADERS);
    }
    const section = findSection(doc, sectionParam);
    if (!section) return notFound(c, `${decl.title} has no section "${sectionParam}".`, signedInAs);
    const text = doc.text.slice(section.start, section.end);
    let marks: [number, number][] = [];
    let verdict: Html = html``;
    if (quote) {
      const span = sectionSpan(doc, section);
      const found = findQuote(doc.normalized, quote, span.from, span.to);
      if (found) {
        // Normalised offsets -> offsets in the section's original text.
        marks = found.parts.map(([a, b]) => [doc.offsets[a]! - section.start, doc.offsets[b - 1]! + 1 - section.start]);
        verdict = html`<p role="status">The quote is in this section: highlighted below${found.parts.length > 1 ? ` (in ${found.parts.length} parts; "…" in a quote marks words left out)` : ''}.</p>`;
      } else verdict = html`<p role="alert"><strong>The quote is not in this section of the held text.</strong></p>`;
    }
    const body = html`<p><a href="${sourcePageHref(place, decl.id, section.id).replace(/\?.*$/, '')}">${decl.title}</a> › § ${section.id}</p>
${quote ? html`<blockquote><q>${quote}</q></blockquote>` : ''}
${verdict}
<pre class="held-text" style="white-space:pre-wrap;overflow-wrap:anywhere;font-size:.85rem">${highlighted(text, marks)}</pre>
<details><summary>About this document</summary>${about}</details>`;
    return htmlPage(c, 200, page(`${decl.title}, § ${section.id}`, body, { signedInAs, wide: true }), PAGE_HEADERS);
  });
}
