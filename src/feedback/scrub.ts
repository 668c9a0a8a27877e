// Removes personal data and credentials from feedback text before it is stored. Each rule names
// what it removed; the placeholders say what was there so staff can still read the report.
// Order matters: whole credentials first (a JWT contains dots a phone rule could bite), then
// contact details, then card numbers (checked with Luhn), then phones, then street addresses.

export type RedactionKind = 'jwt' | 'bearer_token' | 'siteline_secret' | 'password' | 'email' | 'card_number' | 'phone' | 'street_address';

export interface ScrubResult {
  text: string;
  /** How many of each shape were removed (only kinds that occurred). */
  redactions: Partial<Record<RedactionKind, number>>;
}

export interface ScrubOptions {
  /** The user chose to share street addresses (e.g. the site the report is about): keep them. */
  keepStreetAddresses?: boolean;
}

interface Rule {
  kind: RedactionKind;
  pattern: RegExp;
  replace: (match: string, ...groups: string[]) => string | null;
}

const JWT = /\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g;
const BEARER = /\b(Bearer)\s+[A-Za-z0-9._~+/-]{8,}=*/gi;
// Every secret siteline issues: API keys (sl_live_/sl_test_), claim tokens, assertions, opaque tokens, sessions.
const SITELINE_SECRET = /\b(?:sl_live|sl_test|clm|slia|slpt|sls)_[A-Za-z0-9_-]{6,}/g;
const PASSWORD_KV =
  /\b(pass(?:word|wd|phrase)?|pwd|secret|client[_-]?secret|api[_-]?key|apikey|access[_-]?token|auth[_-]?token|token)(\s*[:=]\s*)(?!\[removed)("[^"]*"|'[^']*'|[^\s,;]+)/gi;
const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g;
// 13 to 19 digits written as cards are (one run, groups of four, or Amex 4-6-5); kept unless the Luhn check passes.
const CARD = /\b(?:\d{13,19}|\d{4}(?:[ -]\d{4}){2}[ -]\d{1,4}(?:[ -]\d{3})?|\d{4}[ -]\d{6}[ -]\d{5})\b/g;
// North American (617) 555-0123 / 617-555-0123 / 617.555.0123 (optional +1), or international +CC groups.
const PHONE = /(?:\+?1[\s.-]?)?(?:\(\d{3}\)\s?|\b\d{3}[\s.-])\d{3}[\s.-]\d{4}\b|\+\d{1,3}(?:[\s.-]?\(?\d{1,4}\)?){2,5}\d/g;
// Street words match as written, Capitalised or UPPER case (so "way" inside a sentence is left alone).
const anyCase = (words: string[]) => words.flatMap((w) => [w, w[0]!.toUpperCase() + w.slice(1), w.toUpperCase()]).join('|');
const SUFFIX_FULL = anyCase(['street', 'avenue', 'road', 'boulevard', 'drive', 'lane', 'terrace', 'parkway', 'highway', 'court', 'square', 'circle', 'crescent']);
const SUFFIX_CAPITAL = 'Way|WAY|Place|PLACE|St|ST|Ave|AVE|Av|Rd|RD|Blvd|BLVD|Dr|DR|Ln|LN|Ter|Pkwy|Hwy|Ct|Pl|Sq|Cir|Cres';
const STOP = anyCase('the a an on in at of to for and or by from with this that these those my our your their its is are was were be per each every all some no not than then lot lots'.split(' '));
const NAME_WORD = `(?!(?:${STOP})\\b)[A-Za-z0-9][A-Za-z0-9'.-]*`;
// "12 Main Street", "1200 N. Lamar Blvd, Unit 4, Austin, TX 78701": a house number, up to four name
// words (at least one with a letter: "5th", not "0"), a street type, then an optional unit, city, state/province and postal code.
const STREET_ADDRESS = new RegExp(
  `\\b\\d{1,6}[A-Za-z]?(?:-\\d{1,5})?\\s+(?:${NAME_WORD}\\s+){0,3}${NAME_WORD}\\s+(?:${SUFFIX_FULL}|${SUFFIX_CAPITAL})\\b\\.?` +
    `(?:,?\\s*(?:#|Apt\\.?|Unit|Suite|Ste\\.?)\\s*[A-Za-z0-9-]+)?` +
    `(?:,\\s*[A-Z][A-Za-z.'-]*(?:\\s+[A-Z][A-Za-z.'-]*){0,2})?` +
    `(?:,?\\s+[A-Z]{2}\\b)?(?:\\s+(?:\\d{5}(?:-\\d{4})?|[A-Z]\\d[A-Z]\\s?\\d[A-Z]\\d))?`,
  'g',
);

/** The words between the house number and the street type of an address match. */
function nameWords(match: string): string {
  const words = match.split(/[\s,]+/);
  const suffix = new RegExp(`^(?:${SUFFIX_FULL}|${SUFFIX_CAPITAL})\\.?$`);
  const end = words.findIndex((w, i) => i > 1 && suffix.test(w));
  return words.slice(1, end).join(' ');
}

/** True when a digit string passes the Luhn checksum (payment card numbers do). */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return false;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return digits.length > 0 && sum % 10 === 0;
}

const RULES: Rule[] = [
  { kind: 'jwt', pattern: JWT, replace: () => '[removed: token]' },
  { kind: 'bearer_token', pattern: BEARER, replace: (_m, word) => `${word} [removed: token]` },
  { kind: 'siteline_secret', pattern: SITELINE_SECRET, replace: () => '[removed: key]' },
  { kind: 'password', pattern: PASSWORD_KV, replace: (_m, key, sep) => `${key}${sep}[removed: secret]` },
  { kind: 'email', pattern: EMAIL, replace: () => '[removed: e-mail]' },
  {
    kind: 'card_number',
    pattern: CARD,
    replace: (m) => {
      const digits = m.replace(/\D/g, '');
      return digits.length >= 13 && digits.length <= 19 && luhnValid(digits) ? '[removed: card number]' : null;
    },
  },
  {
    kind: 'phone',
    pattern: PHONE,
    replace: (m) => {
      const n = m.replace(/\D/g, '').length;
      return n >= 10 && n <= 15 ? '[removed: phone]' : null;
    },
  },
  {
    kind: 'street_address',
    pattern: STREET_ADDRESS,
    // The street name needs a letter somewhere ("5th Avenue", "Main St"), so "0 0 road" is not an address.
    replace: (m) => (/[A-Za-z]/.test(nameWords(m)) ? '[removed: street address]' : null),
  },
];

/** Scrubs one text. Pure and idempotent: scrubbing a scrubbed text changes nothing. */
export function scrubText(input: string, opts: ScrubOptions = {}): ScrubResult {
  let text = input;
  const redactions: ScrubResult['redactions'] = {};
  for (const rule of RULES) {
    if (rule.kind === 'street_address' && opts.keepStreetAddresses) continue;
    text = text.replace(rule.pattern, (match: string, ...rest: unknown[]) => {
      const groups = rest.filter((g): g is string => typeof g === 'string');
      const out = rule.replace(match, ...groups);
      if (out === null) return match;
      redactions[rule.kind] = (redactions[rule.kind] ?? 0) + 1;
      return out;
    });
  }
  return { text, redactions };
}
