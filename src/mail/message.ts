// What the service mails: a plain-text part written by the caller, and an HTML part made from it
// (paragraphs kept, every http(s) link clickable), so both parts always say the same thing.
export interface MailMessage {
  to: string;
  subject: string;
  /** The plain-text part; links written out in full. */
  text: string;
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** A URL in running text: up to whitespace, not counting sentence punctuation after it. */
const URL_IN_TEXT = /https?:\/\/[^\s<>"']+[^\s<>"'.,;:!?)]/g;

/** Escaped text with every http(s) URL as a link (the outbox page and the HTML part). */
export function linkifyToHtml(text: string): string {
  let out = '';
  let last = 0;
  for (const m of text.matchAll(URL_IN_TEXT)) {
    out += escapeHtml(text.slice(last, m.index));
    const href = escapeHtml(m[0]);
    out += `<a href="${href}">${href}</a>`;
    last = m.index! + m[0].length;
  }
  return out + escapeHtml(text.slice(last));
}

/** The HTML part of a message: one <p> per paragraph of the text, links clickable. */
export function htmlFromText(subject: string, text: string): string {
  const paragraphs = text
    .trim()
    .split(/\n{2,}/)
    .map((p) => `<p>${linkifyToHtml(p).replace(/\n/g, '<br>\n')}</p>`)
    .join('\n');
  return `<!doctype html>\n<html><head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head>\n<body style="font-family: sans-serif; line-height: 1.5">\n${paragraphs}\n</body></html>\n`;
}
