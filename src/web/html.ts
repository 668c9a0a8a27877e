// Server-rendered pages: escaping and one layout. No JavaScript is needed by any page.
export function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** A template tag that escapes every interpolated value unless it is already Html. */
export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0]!;
  values.forEach((v, i) => {
    const piece = Array.isArray(v) ? v.map((x) => (x instanceof Html ? x.value : esc(String(x)))).join('') : v instanceof Html ? v.value : v == null || v === false ? '' : esc(String(v));
    out += piece + strings[i + 1]!;
  });
  return new Html(out);
}

export function page(title: string, body: Html, opts: { signedInAs?: string | null; wide?: boolean } = {}): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>${esc(title)} · siteline</title>
<style>
body{font:16px/1.5 system-ui,sans-serif;max-width:34rem;margin:2rem auto;padding:0 1rem;color:#1b1b1b}
header{display:flex;justify-content:space-between;align-items:center;border-bottom:1px solid #ddd;margin-bottom:1.5rem}
label{display:block;margin:.75rem 0 .25rem}input[type=email],input[type=password],input[type=text]{width:100%;padding:.5rem;font-size:1rem;box-sizing:border-box}
button{margin-top:1rem;padding:.5rem 1rem;font-size:1rem}.error{color:#a40000;background:#fdecec;padding:.5rem .75rem;border-radius:4px}
.ok{color:#0a5b1f;background:#e8f6ec;padding:.5rem .75rem;border-radius:4px}.code{font-size:1.6rem;letter-spacing:.3rem;width:10rem}
pre{white-space:pre-wrap;background:#f6f6f6;padding:.75rem}
body.wide{max-width:64rem}table{border-collapse:collapse;width:100%;font-size:.9rem}th,td{text-align:left;vertical-align:top;border-bottom:1px solid #ddd;padding:.35rem .5rem}td.note{overflow-wrap:anywhere;width:50%}td p{margin:0 0 .4rem}code.status{background:#f0f0f0;padding:0 .25rem;border-radius:3px;white-space:nowrap}
header strong a{color:inherit;text-decoration:none}
</style>
</head>
<body${opts.wide ? ' class="wide"' : ''}>
<header><strong><a href="/">siteline</a></strong>${opts.signedInAs ? `<span>${esc(opts.signedInAs)}</span>` : ''}</header>
<main>
<h1>${esc(title)}</h1>
${body.value}
</main>
</body>
</html>`;
}
