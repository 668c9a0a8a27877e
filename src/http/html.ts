// Server-rendered pages: escaping and the Html template tag. No page needs JavaScript to be read.
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
    const piece = Array.isArray(v)
      ? v.map((x) => (x instanceof Html ? x.value : esc(String(x)))).join('')
      : v instanceof Html
        ? v.value
        : v == null || v === false
          ? ''
          : esc(String(v));
    out += piece + strings[i + 1]!;
  });
  return new Html(out);
}
