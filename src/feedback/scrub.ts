// Removes personal data and credentials from feedback text before it is stored. Each rule names
// what it removed; the placeholders say what was there so staff can still read the report.
// Order matters: credentials first (src/feedback/scrub-credentials.ts: whole keys and tokens, then
// secrets written as settings or said in words), then contact details, then numbers with a checksum
// or a fixed format (cards and SINs by Luhn, SSNs, phones), then street addresses. Numbers that belong
// to a land record (a Chicago PIN 17-04-123-456-0000, "parcel 123-456-7890", lot lists) are never
// taken for a phone, card, SSN or SIN. `scrubFeedbackText` also runs secretlint's recommended rules in
// process (maintained detectors for many more vendors' credentials) first.
import { lintSource } from '@secretlint/core';
import { creator as secretlintRecommended } from '@secretlint/secretlint-rule-preset-recommend';
import { CREDENTIAL_RULES, type CredentialKind, type Rule } from './scrub-credentials.ts';

export type RedactionKind = CredentialKind | 'email' | 'card_number' | 'ssn' | 'sin' | 'phone' | 'street_address';

export interface ScrubResult {
  text: string;
  /** How many of each shape were removed (only kinds that occurred). */
  redactions: Partial<Record<RedactionKind, number>>;
}

export interface ScrubOptions {
  /** The user chose to share street addresses (e.g. the site the report is about): keep them. */
  keepStreetAddresses?: boolean;
}

// Local part and domain in any script; the at sign and dots may be their full-width or ideographic forms.
// The match is checked after NFKC normalisation, so "ａｄａ＠ｅｘａｍｐｌｅ．ｏｒｇ" reads as an address.
// A match starts only where a run of local-part characters starts (the same result, in linear time).
const EMAIL = /(?<![\p{L}\p{N}\p{M}._%+'-])[\p{L}\p{N}\p{M}._%+'-]+[@＠﹫][\p{L}\p{N}\p{M}-]+(?:[.．。｡][\p{L}\p{N}\p{M}-]+)*[.．。｡][\p{L}\p{M}]{2,}/gu;
const EMAIL_NORMALISED = /^[\p{L}\p{N}\p{M}._%+'-]+@[\p{L}\p{N}\p{M}-]+(?:\.[\p{L}\p{N}\p{M}-]+)*\.[\p{L}\p{M}]{2,}$/u;
// 13 to 19 digits written as cards are (one run, groups of four, or Amex 4-6-5, separated by a space,
// dash, dot or underscore); kept unless the Luhn check passes.
const CARD = /(?<![\d.])(?:\d{13,19}|\d{4}(?:[ ._-]\d{4}){2}[ ._-]\d{1,4}(?:[ ._-]\d{3})?|\d{4}[ ._-]\d{6}[ ._-]\d{5})(?![\d]|[.,]\d)/g;
// US Social Security numbers: 3-2-4 with dashes or spaces (never area 000, 666 or 9xx, group 00 or serial 0000),
// or nine digits after the words SSN / social security. (The look-behind runs only where nine digits
// start, and its spaces are bounded: unbounded, 4,000 spaces took a minute.)
const SSN =
  /(?<![\d-])(?!000|666|9\d\d)\d{3}([- ])(?!00)\d{2}\1(?!0000)\d{4}(?![\d-])|(?=\d{9}\b)(?<=\b(?:SSN|SS#|[Ss]ocial [Ss]ecurity(?: [Nn](?:o\.|umber))?)[ \t]{0,3}[:#]?[ \t]{0,3})\d{9}\b/g;
// Canadian Social Insurance numbers: nine digits (3-3-3 or one run) passing Luhn, first digit not 8.
const SIN = /(?<![\d-])[0-79]\d{2}([- ]?)\d{3}\1\d{3}(?![\d-])/g;
// A number right after one of these words is an identifier in a land record, not a person's number.
const ID_CONTEXT = /(?:parcel|lot|lots|apn|pin|pid|block|map|plat|sheet|permit|case|file|id|ref|reference|no\.|number|#)\s*[:#]?\s*$/i;
const afterIdWord = (whole: string, at: number) => ID_CONTEXT.test(whole.slice(Math.max(0, at - 24), at)) || afterLandWord(whole, at);
// Land-record words only (not "no." or "number", which also stand before phone and card numbers).
const LAND_WORD =
  /(?<![\p{L}\p{N}])(?:parcels?|lots?|apns?|pins?|pids?|blocks?|maps?|plats?|permits?|folios?|sbl|ml|loc_id|gis ids?|assessor(?:'s)? ids?)(?:\s*(?:ids?|nos?\.?|numbers?|#))?\s*[:#]?\s*/giu;
const LIST_SEPARATOR = /\s*(?:,|\band\b|\bor\b|&)\s*/i;
/**
 * True when the number at `at` follows a land-record word, directly ("PIN 17-04-123-456-0000") or in a
 * list of such ids after it ("APNs 2125550175, 2125550176 and …"; each earlier item has 5+ digits, so
 * "lots 12 and 14, 617-555-0123" still reads as a phone).
 */
function afterLandWord(whole: string, at: number): boolean {
  const before = whole.slice(Math.max(0, at - 80), at);
  let last: RegExpExecArray | undefined;
  for (const m of before.matchAll(LAND_WORD)) last = m;
  if (!last) return false;
  const between = before.slice(last.index + last[0].length);
  if (between === '') return true;
  const items = between.split(LIST_SEPARATOR);
  if (items.length < 2 || items.at(-1) !== '') return false;
  return items.slice(0, -1).every((it) => /^\d[\w./ -]*$/.test(it) && (it.match(/\d/g)?.length ?? 0) >= 5);
}
const SIN_CONTEXT = /\b(?:SIN|NAS|social insurance)\b[^\d]{0,24}$/i;
// North American (617) 555-0123 / 617-555-0123 / 617.555.0123 (optional +1), or international +CC groups.
// A North American shape inside a longer grouped number (17-04-123-456-0000, 17 04 123 456 0000) is
// part of that number, not a phone.
const PHONE = /(?<!\d[\s.-]|[\d-])(?:\+?1[\s.-]?)?(?:\(\d{3}\)\s?|\b\d{3}[\s.-])\d{3}[\s.-]\d{4}\b(?![.-]?\d)|\+\d{1,3}(?:[\s.-]?\(?\d{1,4}\)?){2,5}\d/g;
// Ten digits in one run that fit the North American plan (area code and exchange start 2-9), with an optional leading 1.
const PHONE_BARE = /(?<![\d.,-])(?:\+?1)?[2-9]\d{2}[2-9]\d{6}(?![\d]|[.,]\d)/g;
// Street words match as written, Capitalised or UPPER case (so "way" inside a sentence is left alone).
const anyCase = (words: string[]) => words.flatMap((w) => [w, w[0]!.toUpperCase() + w.slice(1), w.toUpperCase()]).join('|');
const SUFFIX_FULL = anyCase([
  'street',
  'avenue',
  'road',
  'boulevard',
  'drive',
  'lane',
  'terrace',
  'parkway',
  'highway',
  'court',
  'square',
  'circle',
  'crescent',
]);
const SUFFIX_CAPITAL = 'Way|WAY|Place|PLACE|St|ST|Ave|AVE|Av|Rd|RD|Blvd|BLVD|Dr|DR|Ln|LN|Ter|Pkwy|Hwy|Ct|Pl|Sq|Cir|Cres';
const STOP = anyCase(
  'the a an on in at of to for and or by from with this that these those my our your their its is are was were be per each every all some no not than then lot lots'.split(
    ' ',
  ),
);
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

const RULES: Rule<RedactionKind>[] = [
  ...CREDENTIAL_RULES,
  { kind: 'email', pattern: EMAIL, replace: (m) => (EMAIL_NORMALISED.test(m.normalize('NFKC')) ? '[removed: e-mail]' : null) },
  {
    kind: 'card_number',
    pattern: CARD,
    replace: (m, _g, at, whole) => {
      if (afterLandWord(whole, at)) return null;
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
    replace: (m, _g, at, whole) => {
      if (afterLandWord(whole, at)) return null;
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
// Where a secretlint finding is widened to: a reported range can be shorter than the secret (its AWS
// rule, 13.0.7, reports the match's start with the captured key's length, so "aws_secret_access_key = "
// would be cut and 24 of the key's 40 characters kept). A finding removes whole words.
const WORD_EDGE = /[\s"'`<>()[\]{},;]/;

/** Widens [start, end) to the words it touches. */
function wholeWords(text: string, start: number, end: number): [number, number] {
  while (start > 0 && !WORD_EDGE.test(text[start - 1]!)) start--;
  while (end < text.length && !WORD_EDGE.test(text[end]!)) end++;
  return [start, end];
}

/**
 * What is stored: `scrubText`'s rules, then secretlint's recommended detectors (run in process, nothing
 * leaves the machine) over what is left; each of their findings removes the words it touches as
 * `[removed: secret]`. Idempotent, like scrubText.
 */
export async function scrubFeedbackText(input: string, opts: ScrubOptions = {}): Promise<ScrubResult> {
  const ours = scrubText(input, opts);
  const found = await lintSource({
    source: { filePath: '/feedback.txt', content: ours.text, contentType: 'text', ext: '.txt' },
    options: { config: SECRETLINT_CONFIG as never },
  });
  // Widen, merge overlapping ranges, then cut from the end so earlier offsets stay valid.
  const ranges = found.messages.map((m) => wholeWords(ours.text, m.range[0], m.range[1])).sort((a, b) => a[0] - b[0]);
  const merged: [number, number][] = [];
  for (const r of ranges) {
    const last = merged[merged.length - 1];
    if (last && r[0] <= last[1]) last[1] = Math.max(last[1], r[1]);
    else merged.push([...r]);
  }
  let text = ours.text;
  for (const [start, end] of merged.reverse()) text = text.slice(0, start) + '[removed: secret]' + text.slice(end);
  const redactions = { ...ours.redactions };
  if (merged.length) redactions.api_token = (redactions.api_token ?? 0) + merged.length;
  return { text, redactions };
}
