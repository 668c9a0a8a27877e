// The reference page of /api/v1 (/docs/api), rendered from the OpenAPI document (src/rest/openapi.ts).
import { html, type Html } from '../http/html.ts';
import { page } from '../http/page.ts';
import type { Json } from './openapi-parts.ts';

// ---- the reference page ------------------------------------------------------------------------------
// Written for a developer on any screen: each operation headed by what it does, a curl command to copy,
// its parameters, body and answers as field lists (no table wider than a phone), and every schema as
// a field list whose types link to the schemas they name. Generated from the document alone.

/** The example the document gives for an operation's request body, if any. */
function bodyExample(op: Json): Json | undefined {
  return op.requestBody?.content?.['application/json']?.example as Json | undefined;
}

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * What the examples send as Idempotency-Key (issue 49, item 6): the shell makes a new one each time the
 * command runs (16 random bytes in hex, with tools every Unix shell has), so pasting the example again,
 * for another address, is a new request and never the 422 of a key used with another request. One
 * printed key would be reused by every reader who copies it.
 */
export const FRESH_IDEMPOTENCY_KEY = `$(od -An -tx1 -N16 /dev/urandom | tr -d ' \\n')`;

/** A curl command for one operation, with the document's examples (the credential from the environment). */
export function curlExample(base: string, method: string, path: string, op: Json): string {
  const lines: string[] = [];
  const params = (op.parameters ?? []) as Json[];
  const query = params.filter((p) => p.in === 'query' && p.example !== undefined);
  const url = base + path.replace(/\{(\w+)\}/g, (_m, name: string) => String(params.find((p) => p.in === 'path' && p.name === name)?.example ?? `<${name}>`));
  lines.push(`curl -sS${method === 'get' ? '' : ` -X ${method.toUpperCase()}`}${query.length ? ' -G' : ''} ${shellQuote(url)}`);
  for (const p of query) lines.push(`  --data-urlencode ${shellQuote(`${p.name}=${p.example}`)}`);
  const secured = !(Array.isArray(op.security) && op.security.length === 0);
  // The keys operations take a user access token only (x-credential); the rest an API key.
  if (secured) lines.push(`  -H "Authorization: Bearer ${op['x-credential'] === 'user_token' ? '$SITELINE_USER_TOKEN' : '$SITELINE_API_KEY'}"`);
  for (const p of params.filter((x) => x.in === 'header' && x.example !== undefined)) {
    lines.push(/^idempotency-key$/i.test(p.name) ? `  -H "${p.name}: ${FRESH_IDEMPOTENCY_KEY}"` : `  -H ${shellQuote(`${p.name}: ${p.example}`)}`);
  }
  const body = bodyExample(op);
  if (body !== undefined) {
    lines.push(`  -H 'Content-Type: application/json'`);
    lines.push(`  -d ${shellQuote(JSON.stringify(body))}`);
  }
  return lines.join(' \\\n');
}

/** A path with break opportunities after each slash, so it wraps between segments, never mid-word. */
function pathHtml(path: string): Html {
  return html`${path.split('/').map((seg, i) => html`${i ? html`/<wbr>` : ''}${seg}`)}`;
}

const refName = (ref: string) => ref.split('/').pop()!;

/** A schema's type in words, with links to the schemas it names. */
function typeHtml(s: Json | undefined, depth = 0): Html {
  if (!s || typeof s !== 'object') return html`any`;
  if (s.$ref) return html`<a href="#schema-${refName(s.$ref)}">${refName(s.$ref)}</a>`;
  if (s.const !== undefined) return html`<code>${JSON.stringify(s.const)}</code>`;
  if (Array.isArray(s.enum)) return html`one of ${s.enum.map((v: unknown, i: number) => html`${i ? ', ' : ''}<code>${JSON.stringify(v)}</code>`)}`;
  const alts = (s.anyOf ?? s.oneOf) as Json[] | undefined;
  if (alts) return html`${alts.map((a, i) => html`${i ? ' or ' : ''}${typeHtml(a, depth)}`)}`;
  if (Array.isArray(s.type)) return html`${s.type.join(' or ')}`;
  if (s.type === 'array') return html`array of ${typeHtml(s.items, depth)}`;
  if (s.type === 'object' && s.properties && depth < 2) return html`object${fieldList(s, depth + 1)}`;
  if (s.type === 'object' && s.additionalProperties && typeof s.additionalProperties === 'object')
    return html`map of ${typeHtml(s.additionalProperties, depth)}`;
  return html`${s.type ?? 'any'}`;
}

/** Limits worth a reader's eye: length, range and pattern. */
function limitsText(s: Json): string {
  const out: string[] = [];
  if (s.minLength !== undefined || s.maxLength !== undefined) out.push(`${s.minLength ?? 0}–${s.maxLength ?? '…'} characters`);
  if (s.minimum !== undefined && Math.abs(s.minimum) < 1e15) out.push(`≥ ${s.minimum}`);
  if (s.maximum !== undefined && Math.abs(s.maximum) < 1e15) out.push(`≤ ${s.maximum}`);
  if (s.pattern && s.pattern.length < 30) out.push(`pattern ${s.pattern}`);
  return out.join(', ');
}

/** An object schema's fields: name, type, whether required, limits and description. */
function fieldList(s: Json, depth = 0): Html {
  const props = Object.entries((s.properties ?? {}) as Record<string, Json>);
  if (!props.length) return html``;
  const required = new Set<string>((s.required ?? []) as string[]);
  return html`<dl class="fields">${props.map(([name, f]) => {
    const limits = limitsText(f);
    return html`<dt><code>${name}</code> <span class="muted">${required.has(name) ? 'required' : 'optional'}</span></dt><dd>${typeHtml(f, depth)}${limits ? html` <span class="muted">(${limits})</span>` : ''}${f.description ? html`<br>${f.description}` : ''}</dd>`;
  })}</dl>`;
}

function schemaBlock(name: string, s: Json): Html {
  const fields = s.type === 'object' && s.properties;
  // Folded (issue 49, item 6).
  // The id is on the folded content, not the <details>: browsers open a closed <details> only when the fragment points inside it.
  return html`<details class="schema"><summary><h3>${name}</h3></summary><div id="schema-${name}">${s.description ? html`<p>${s.description}</p>` : ''}${fields ? fieldList(s) : html`<p>${typeHtml(s)}</p>`}</div></details>`;
}

const REFERENCE_STYLE = html`<style>
main h2,main h3{overflow-wrap:normal;word-break:normal;hyphens:manual}
.op-path{display:block;overflow-wrap:anywhere;font-size:.95rem}
pre.curl{white-space:pre-wrap;overflow-wrap:anywhere;background:#f6f8fa;border:1px solid #ddd;border-radius:4px;padding:.6rem;font-size:.85rem;max-width:100%}
dl.fields{margin:.4rem 0 1rem;padding:0}
dl.fields dt{margin-top:.5rem;font-weight:600}
dl.fields dd{margin:0 0 0 1rem;overflow-wrap:anywhere}
dl.fields dl.fields{margin-left:.5rem;border-left:2px solid #eee;padding-left:.5rem}
nav.toc ul{padding-left:1.2rem}
details.schema>summary h3,details.op-fields>summary{display:inline;margin:0;font-size:1rem}
details.schema,details.op-fields{border-top:1px solid #eee;padding:.3rem 0}
details.op-fields>summary{font-weight:600}
</style>`;

export function renderApiReference(doc: Json, signedInAs: string | null = null): string {
  const base = String(doc.servers?.[0]?.url ?? '');
  const ops: Html[] = [];
  const toc: Html[] = [];
  for (const [path, methods] of Object.entries(doc.paths as Record<string, Record<string, Json>>)) {
    for (const [method, op] of Object.entries(methods)) {
      const params = (op.parameters ?? []) as Json[];
      const body = op.requestBody?.content?.['application/json']?.schema as Json | undefined;
      const responses = Object.entries((op.responses ?? {}) as Record<string, Json>);
      toc.push(html`<li><a href="#${op.operationId}">${op.summary}</a></li>`);
      ops.push(html`<section id="${op.operationId}" class="op" data-method="${method.toUpperCase()}" data-path="${path}">
<h2>${op.summary}</h2>
<p><code class="op-path">${method.toUpperCase()} ${pathHtml(path)}</code></p>
${op.description ? html`<p>${op.description}</p>` : ''}
<p>Example:</p>
<pre class="curl"><code>${curlExample(base, method, path, op)}</code></pre>
<details class="op-fields"><summary>${[params.length ? 'Parameters' : '', body ? 'request body' : '', 'answers']
        .filter(Boolean)
        .join(', ')
        .replace(/^./, (ch) => ch.toUpperCase())}</summary>
${
  params.length
    ? html`<h3>Parameters</h3><dl class="fields">${params.map(
        (p) =>
          html`<dt><code>${p.name}</code> <span class="muted">${p.in}, ${p.required ? 'required' : 'optional'}</span></dt><dd>${typeHtml(p.schema)}${limitsText(p.schema ?? {}) ? html` <span class="muted">(${limitsText(p.schema)})</span>` : ''}${p.description ? html`<br>${p.description}` : ''}</dd>`,
      )}</dl>`
    : ''
}
${body ? html`<h3>Request body</h3><p><code>application/json</code>: ${typeHtml(body)}</p>` : ''}
<h3>Answers</h3>
<dl class="fields">${responses.map(([status, r]) => {
        const content = r.content ? Object.entries(r.content as Record<string, Json>)[0] : undefined;
        return html`<dt>${status}${content ? html` <span class="muted">${content[0]}</span>` : ''}${content?.[1]?.schema ? html` ${typeHtml(content[1].schema)}` : ''}</dt><dd>${r.description}${r.headers ? html`<br><span class="muted">Headers: ${Object.keys(r.headers).join(', ')}</span>` : ''}</dd>`;
      })}</dl>
</details>
</section>`);
    }
  }
  const problems = Object.entries(doc['x-problem-types'] as Record<string, Json>).map(
    ([code, p]) =>
      html`<dt id="problem-${code.replace(/_/g, '-')}"><code>${code}</code> <span class="muted">${p.status}</span></dt><dd>${p.title}<br><span class="muted">type <code>${p.type}</code></span></dd>`,
  );
  const schemas = Object.entries(doc.components.schemas as Record<string, Json>).map(([name, s]) => schemaBlock(name, s));
  const body = html`<p>${doc.info.summary}</p>
<p>${doc.info.description}</p>
<p>Machine-readable: <a href="/api/v1/openapi.json">/api/v1/openapi.json</a> (OpenAPI ${doc.openapi}). Full notes: docs/rest-api.md in the repository.${doc.info.license ? html` Licence: ${doc.info.license.name}.` : ''}</p>
<p>The examples read your API key from <code>$SITELINE_API_KEY</code>, and, for the key operations (which refuse API keys), a user access token from <code>$SITELINE_USER_TOKEN</code>.
Where an operation takes an <code>Idempotency-Key</code>, the example makes a new one each time it runs (<code>${FRESH_IDEMPOTENCY_KEY}</code>); to retry one request safely, send the key it used again.</p>
<nav class="toc" aria-label="Operations"><h2>Operations</h2><ul>${toc}<li><a href="#problems">Problem types</a></li><li><a href="#schemas">Schemas</a></li></ul></nav>
${ops}
<h2 id="problems">Problem types</h2>
<p>Every error is <code>application/problem+json</code> (RFC 9457) with <code>type</code>, <code>title</code>, <code>status</code>, <code>detail</code>, <code>code</code> and <code>requestId</code>.</p>
<details id="problem-list"><summary>The ${String(problems.length)} problem types</summary><dl class="fields">${problems}</dl></details>
<h2 id="schemas">Schemas</h2>
<p>Each opens on its name; the types above link to them.</p>
${schemas}`;
  return page('siteline REST API reference', body, { wide: true, signedInAs, head: REFERENCE_STYLE });
}
