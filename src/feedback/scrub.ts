// Removes personal data and credentials from feedback text before it is stored. Each rule names
// what it removed; the placeholders say what was there so staff can still read the report.
// Order matters: whole credentials first (a PEM block or a JWT contains digits and dots later rules
// could bite), then contact details, then numbers with a checksum or a fixed format (cards and SINs
// by Luhn, SSNs, phones), then street addresses. `scrubFeedbackText` also runs secretlint's
// recommended rules in process (maintained detectors for many more vendors' credentials) first.
import { lintSource } from '@secretlint/core';
import { creator as secretlintRecommended } from '@secretlint/secretlint-rule-preset-recommend';

export type RedactionKind =
  | 'private_key'
  | 'jwt'
  | 'bearer_token'
  | 'siteline_secret'
  | 'api_token'
  | 'password'
  | 'email'
  | 'card_number'
  | 'ssn'
  | 'sin'
  | 'phone'
  | 'street_address';

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
  /** The replacement, or null to keep the match. `at` is the match's offset in `whole`. */
  replace: (match: string, groups: string[], at: number, whole: string) => string | null;
}

const JWT = /\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g;
const BEARER = /\b(Bearer)\s+[A-Za-z0-9._~+/-]{8,}=*/gi;
// Every secret siteline issues: API keys (sl_live_/sl_test_), claim tokens, assertions, opaque tokens, sessions.
const SITELINE_SECRET = /\b(?:sl_live|sl_test|clm|slia|slpt|sls)_[A-Za-z0-9_-]{6,}/g;
// A PEM private key block, BEGIN to END (or to the end of the text when the END line was not pasted).
const PEM_PRIVATE_KEY = /-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|$)/g;
// Vendors' credentials whose shape is their own: AWS access key ids, GitHub tokens (classic and
// fine-grained), OpenAI keys, Slack tokens and webhooks, Stripe keys and webhook secrets.
const API_TOKEN = new RegExp(
  [
    String.raw`\b(?:A3T[A-Z0-9]|AKIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|ASIA)[A-Z0-9]{16}\b`,
    String.raw`\bgh[pousr]_[A-Za-z0-9]{30,255}\b`,
    String.raw`\bgithub_pat_[A-Za-z0-9_]{22,255}`,
    String.raw`\bsk-(?:proj-|svcacct-|admin-|ant-)?[A-Za-z0-9_-]{20,}`,
    String.raw`\bxox[abposre]-[A-Za-z0-9-]{10,}`,
    String.raw`https://hooks\.slack\.com/services/[A-Za-z0-9/_-]+`,
    String.raw`\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{10,}`,
    String.raw`\bwhsec_[A-Za-z0-9]{10,}`,
  ].join('|'),
  'g',
);
const SECRET_KEYS =
  String.raw`pass(?:word|wd|phrase|code)?|pwd|secret|client[_-]?secret|api[_-]?key|apikey|access[_-]?token|auth[_-]?token|refresh[_-]?token|token|` +
  String.raw`aws[_-]?secret[_-]?access[_-]?key|aws[_-]?session[_-]?token|private[_-]?key`;
// key=value, key: value, and the JSON and YAML shapes where the key is quoted: {"password": "…"}, 'pwd'='…'.
const PASSWORD_KV = new RegExp(
  String.raw`\b(${SECRET_KEYS})(\\?["']?\s*(?:[:=]|=>)\s*)(?!\[removed)(\\?"(?:[^"\\]|\\.)*?\\?"|'[^']*'|[^\s,;}\]]+)`,
  'gi',
);
// Prose: "my password is hunter2", "the API key was sk…", "password: now Tr0ub4dor". The word after
// "is" is kept when it says something about the secret rather than being it ("is wrong", "is not").
const PROSE_NOT_SECRET = new RegExp(
  '^(?:' +
    'not|wrong|correct|right|invalid|incorrect|rejected|too|being|the|a|an|still|fine|ok|okay|expired|required|reset|missing|empty|' +
    'accepted|ignored|no|never|always|only|same|different|changed|long|short|weak|strong|fine|set|saved|stored|shown|visible|hidden|' +
    'removed|lost|forgotten|gone|there|here|in|on|at|for|from|with|what|which|that|this|it|of|my|your|our|their|its|now|also|just|' +
    'valid|working|broken|good|bad|unknown|sent|used|needed|shared|displayed|printed|logged|case-sensitive|fine|new|old|correct' +
    ')[.,;:!?)]*$',
  'i',
);
const PASSWORD_PROSE = new RegExp(
  String.raw`\b(pass(?:word|phrase|code)|pwd|api key|secret key|access token|token|secret)(\s+(?:is|was|=|:|of|reads|would be)\s+(?:now\s+|still\s+|just\s+)?)(["'“‘]?)([^\s"'”’]{3,})`,
  'gi',
);
// Local part and domain in any script; the at sign and dots may be their full-width or ideographic forms.
// The match is checked after NFKC normalisation, so "ａｄａ＠ｅｘａｍｐｌｅ．ｏｒｇ" reads as an address.
const EMAIL = /[\p{L}\p{N}\p{M}._%+'-]+[@＠﹫][\p{L}\p{N}\p{M}-]+(?:[.．。｡][\p{L}\p{N}\p{M}-]+)*[.．。｡][\p{L}\p{M}]{2,}/gu;
const EMAIL_NORMALISED = /^[\p{L}\p{N}\p{M}._%+'-]+@[\p{L}\p{N}\p{M}-]+(?:\.[\p{L}\p{N}\p{M}-]+)*\.[\p{L}\p{M}]{2,}$/u;
// 13 to 19 digits written as cards are (one run, groups of four, or Amex 4-6-5, separated by a space,
// dash, dot or underscore); kept unless the Luhn check passes.
const CARD = /(?<![\d.])(?:\d{13,19}|\d{4}(?:[ ._-]\d{4}){2}[ ._-]\d{1,4}(?:[ ._-]\d{3})?|\d{4}[ ._-]\d{6}[ ._-]\d{5})(?![\d]|[.,]\d)/g;
// US Social Security numbers: 3-2-4 with dashes or spaces (never area 000, 666 or 9xx, group 00 or serial 0000),
// or nine digits after the words SSN / social security.
const SSN =
  /(?<![\d-])(?!000|666|9\d\d)\d{3}([- ])(?!00)\d{2}\1(?!0000)\d{4}(?![\d-])|(?<=\b(?:SSN|SS#|[Ss]ocial [Ss]ecurity(?: [Nn](?:o\.|umber))?)\s*[:#]?\s*)\d{9}\b/g;
// Canadian Social Insurance numbers: nine digits (3-3-3 or one run) passing Luhn, first digit not 8.
const SIN = /(?<![\d-])[0-79]\d{2}([- ]?)\d{3}\1\d{3}(?![\d-])/g;
// A number right after one of these words is an identifier in a land record, not a person's number.
const ID_CONTEXT = /(?:parcel|lot|lots|apn|pin|pid|block|map|plat|sheet|permit|case|file|id|ref|reference|no\.|number|#)\s*[:#]?\s*$/i;
const afterIdWord = (whole: string, at: number) => ID_CONTEXT.test(whole.slice(Math.max(0, at - 24), at));
const SIN_CONTEXT = /\b(?:SIN|NAS|social insurance)\b[^\d]{0,24}$/i;
// North American (617) 555-0123 / 617-555-0123 / 617.555.0123 (optional +1), or international +CC groups.
const PHONE = /(?:\+?1[\s.-]?)?(?:\(\d{3}\)\s?|\b\d{3}[\s.-])\d{3}[\s.-]\d{4}\b|\+\d{1,3}(?:[\s.-]?\(?\d{1,4}\)?){2,5}\d/g;
// Ten digits in one run that fit the North American plan (area code and exchange start 2-9), with an optional leading 1.
const PHONE_BARE = /(?<![\d.,-])(?:\+?1)?[2-9]\d{2}[2-9]\d{6}(?![\d]|[.,]\d)/g;
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
  { kind: 'private_key', pattern: PEM_PRIVATE_KEY, replace: () => '[removed: private key]' },
  { kind: 'jwt', pattern: JWT, replace: () => '[removed: token]' },
  { kind: 'bearer_token', pattern: BEARER, replace: (_m, [word]) => `${word} [removed: token]` },
  { kind: 'siteline_secret', pattern: SITELINE_SECRET, replace: () => '[removed: key]' },
  { kind: 'api_token', pattern: API_TOKEN, replace: () => '[removed: token]' },
  { kind: 'password', pattern: PASSWORD_KV, replace: (_m, [key, sep]) => `${key}${sep}[removed: secret]` },
  {
    kind: 'password',
    pattern: PASSWORD_PROSE,
    replace: (_m, [key, sep, quote, value]) => (PROSE_NOT_SECRET.test(value!) || value!.startsWith('[removed') ? null : `${key}${sep}${quote}[removed: secret]`),
  },
  { kind: 'email', pattern: EMAIL, replace: (m) => (EMAIL_NORMALISED.test(m.normalize('NFKC')) ? '[removed: e-mail]' : null) },
  {
    kind: 'card_number',
    pattern: CARD,
    replace: (m) => {
      const digits = m.replace(/\D/g, '');
      return digits.length >= 13 && digits.length <= 19 && luhnValid(digits) ? '[removed: card number]' : null;
    },
  },
  { kind: 'ssn', pattern: SSN, replace: (_m, _g, at, whole) => (afterIdWord(whole, at) ? null : '[removed: SSN]') },
  {
    kind: 'sin',
    pattern: SIN,
    // With the word SIN nearby any grouping counts; without it only 3-3-3 with dashes, and not after a
    // land-record word ("parcel 130-692-544"); spaced groups of three are too common in reports.
    replace: (m, [sep], at, whole) => {
      if (!luhnValid(m.replace(/\D/g, ''))) return null;
      const named = SIN_CONTEXT.test(whole.slice(Math.max(0, at - 40), at));
      if (named) return '[removed: SIN]';
      return sep === '-' && !afterIdWord(whole, at) ? '[removed: SIN]' : null;
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
  { kind: 'phone', pattern: PHONE_BARE, replace: (_m, _g, at, whole) => (afterIdWord(whole, at) ? null : '[removed: phone]') },
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
      // replace() passes the groups, then the offset, then the whole string (and named groups, unused here).
      const offsetIndex = rest.findIndex((g) => typeof g === 'number');
      const groups = rest.slice(0, offsetIndex).map((g) => (typeof g === 'string' ? g : ''));
      const out = rule.replace(match, groups, rest[offsetIndex] as number, rest[offsetIndex + 1] as string);
      if (out === null) return match;
      redactions[rule.kind] = (redactions[rule.kind] ?? 0) + 1;
      return out;
    });
  }
  return { text, redactions };
}

const SECRETLINT_CONFIG = { rules: [{ id: '@secretlint/secretlint-rule-preset-recommend', rule: secretlintRecommended }] };

/**
 * What is stored: secretlint's recommended detectors (run in process, nothing leaves the machine)
 * replace each credential they find with `[removed: secret]`, then `scrubText` runs its own rules.
 */
export async function scrubFeedbackText(input: string, opts: ScrubOptions = {}): Promise<ScrubResult> {
  const found = await lintSource({
    source: { filePath: '/feedback.txt', content: input, contentType: 'text', ext: '.txt' },
    options: { config: SECRETLINT_CONFIG as never },
  });
  // Merge overlapping ranges, then cut from the end so earlier offsets stay valid.
  const ranges = found.messages.map((m) => [m.range[0], m.range[1]] as [number, number]).sort((a, b) => a[0] - b[0]);
  const merged: [number, number][] = [];
  for (const r of ranges) {
    const last = merged[merged.length - 1];
    if (last && r[0] <= last[1]) last[1] = Math.max(last[1], r[1]);
    else merged.push([...r]);
  }
  let text = input;
  for (const [start, end] of merged.reverse()) text = text.slice(0, start) + '[removed: secret]' + text.slice(end);
  const rest = scrubText(text, opts);
  const redactions = { ...rest.redactions };
  if (merged.length) redactions.api_token = (redactions.api_token ?? 0) + merged.length;
  return { text: rest.text, redactions };
}
