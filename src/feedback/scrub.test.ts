// Each personal-data and credential shape is removed; ordinary sentences (with numbers, zoning codes,
// lot ids) come through unchanged; scrubbing is idempotent.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { luhnValid, scrubText } from './scrub.ts';
import { checkAnswer } from './feedback-form.ts';

const cases: { name: string; input: string; output: string; kind: string }[] = [
  { name: 'e-mail address', input: 'Write to ada.lovelace+siteline@mail.example.org today', output: 'Write to [removed: e-mail] today', kind: 'email' },
  { name: 'North American phone', input: 'Call (617) 555-0123 after six', output: 'Call [removed: phone] after six', kind: 'phone' },
  { name: 'phone with +1 and dashes', input: 'Cell: +1 617-555-0123.', output: 'Cell: [removed: phone].', kind: 'phone' },
  { name: 'phone with dots', input: 'or 617.555.0123', output: 'or [removed: phone]', kind: 'phone' },
  { name: 'international phone', input: 'London office +44 20 7946 0958 works', output: 'London office [removed: phone] works', kind: 'phone' },
  {
    name: 'street address with city, state and ZIP',
    input: 'My house at 1200 N. Lamar Blvd, Unit 4, Austin, TX 78701 shows no lot.',
    output: 'My house at [removed: street address] shows no lot.',
    kind: 'street_address',
  },
  {
    name: 'street address, lower case',
    input: 'the lot at 57 inman street is wrong',
    output: 'the lot at [removed: street address] is wrong',
    kind: 'street_address',
  },
  {
    name: 'Canadian address with postal code',
    input: 'See 350 Queen St, Toronto, ON M5V 2A2 please',
    output: 'See [removed: street address] please',
    kind: 'street_address',
  },
  {
    name: 'bearer token',
    input: 'I sent Authorization: Bearer abc123DEF456ghi789.jkl',
    output: 'I sent Authorization: Bearer [removed: token]',
    kind: 'bearer_token',
  },
  {
    name: 'JWT',
    input: 'token eyJhbGciOiJFUzI1NiIsImtpZCI6ImsxIn0.eyJzdWIiOiJhY2N0XzEyMyIsInNjb3BlIjoibWNwIn0.MEUCIQDx4m-sig_value here',
    output: 'token [removed: token] here',
    kind: 'jwt',
  },
  { name: 'siteline API key', input: 'my key sl_live_9fK2mQ7xL0pR4sT8vW1yZ3 failed', output: 'my key [removed: key] failed', kind: 'siteline_secret' },
  { name: 'claim token', input: 'claim clm_Qm9vLWJhci1iYXotcXV4LTEyMzQ1Njc4OTA stuck', output: 'claim [removed: key] stuck', kind: 'siteline_secret' },
  { name: 'card number with spaces (Luhn)', input: 'charged 4111 1111 1111 1111 twice', output: 'charged [removed: card number] twice', kind: 'card_number' },
  { name: 'card number with dashes (Luhn)', input: 'card 5500-0000-0000-0004.', output: 'card [removed: card number].', kind: 'card_number' },
  { name: 'password in key=value', input: 'login password=hunter2! failed', output: 'login password=[removed: secret] failed', kind: 'password' },
  { name: 'quoted secret in key: value', input: 'client_secret: "s3cr3t value" leaked', output: 'client_secret: [removed: secret] leaked', kind: 'password' },
];

for (const c of cases) {
  test(`scrub: ${c.name}`, () => {
    const r = scrubText(c.input);
    assert.equal(r.text, c.output);
    assert.equal(r.redactions[c.kind as keyof typeof r.redactions], 1);
    assert.equal(scrubText(r.text).text, r.text, 'idempotent');
  });
}

test('scrub: a 16-digit number that fails the Luhn check is not a card and stays', () => {
  assert.equal(luhnValid('4111111111111111'), true);
  assert.equal(luhnValid('4111111111111112'), false);
  assert.equal(scrubText('Parcel 4111 1111 1111 1112 is odd').text, 'Parcel 4111 1111 1111 1112 is odd');
});

test('scrub: street addresses stay when the user chose to share them; everything else still goes', () => {
  const r = scrubText('No envelope for 57 Inman Street; mail ada@example.org', { keepStreetAddresses: true });
  assert.equal(r.text, 'No envelope for 57 Inman Street; mail [removed: e-mail]');
});

test('scrub: an ordinary report comes through unchanged', () => {
  const s =
    'The envelope for lot 42 in district C-2 shows a height of 85 ft and FAR 2.5, but section 5.31.2 says 70 ft; ' +
    'parcel 123-456-789 (10000 sq ft, built 1987) has 2 lots on the road, 3 floors way up. Great work on the citations!';
  assert.deepEqual(scrubText(s), { text: s, redactions: {} });
});

// Street types (road, street) are left out: a number, a word and "road" is an address shape.
const WORDS = [
  'the',
  'lot',
  'zoning',
  'district',
  'height',
  'setback',
  'is',
  'wrong',
  'envelope',
  'shows',
  'ft',
  'FAR',
  'section',
  'bylaw',
  'Cambridge',
  'Austin',
  'parcel',
  'corner',
  'frontage',
  'on',
  'way',
  'near',
  'please',
  'add',
  'thanks',
  'C-2',
  'R-3',
  'overlay',
  'map',
  'great',
];
const token = fc.oneof(
  fc.constantFrom(...WORDS),
  // Four-digit numbers are left out: four of them in a row can pass Luhn and read as a card number.
  fc.oneof(fc.integer({ min: 0, max: 999 }), fc.integer({ min: 10_000, max: 99_999 })).map(String),
  fc.tuple(fc.integer({ min: 0, max: 99 }), fc.integer({ min: 0, max: 9 })).map(([a, b]) => `${a}.${b}`),
);
const sentence = fc.array(token, { minLength: 1, maxLength: 25 }).map((w) => w.join(' ') + '.');

test('property: sentences of ordinary words and numbers survive unchanged', () => {
  fc.assert(
    fc.property(sentence, (s) => {
      assert.equal(scrubText(s).text, s);
    }),
    { numRuns: 500 },
  );
});

test('property: a credential or e-mail placed anywhere in a sentence never survives; scrubbing is idempotent', () => {
  const secret = fc.oneof(
    fc.stringMatching(/^[a-z]{1,10}\.[a-z]{1,8}@[a-z]{2,10}\.(com|org|ca)$/),
    fc.stringMatching(/^[A-Za-z0-9]{20,40}$/).map((s) => `sl_live_${s}`),
    fc.stringMatching(/^[A-Za-z0-9_-]{20,43}$/).map((s) => `clm_${s}`),
    fc.stringMatching(/^[A-Za-z0-9]{8,20}$/).map((s) => `password=${s}`),
  );
  fc.assert(
    fc.property(sentence, secret, sentence, (a, s, b) => {
      const r = scrubText(`${a} ${s} ${b}`);
      const secretPart = s.startsWith('password=') ? s.slice('password='.length) : s;
      assert.ok(!r.text.includes(secretPart), `${s} survived in ${r.text}`);
      assert.equal(scrubText(r.text).text, r.text);
    }),
    { numRuns: 300 },
  );
});

test('checkAnswer: category, message length and tool name are checked, with every problem named', () => {
  const bad = checkAnswer({ category: 'rant', message: ' x ', affectedToolName: 'drop table;' });
  assert.equal(bad.ok, false);
  assert.equal(bad.ok === false && bad.problems.length, 3);
  assert.equal(checkAnswer({ message: 'hi there' }).ok, false);
  assert.equal(checkAnswer({ category: 'other', message: 'x'.repeat(4001) }).ok, false);
  const good = checkAnswer({ category: 'praise', message: '  Nice\r\nwork\u0007  ', affectedToolName: '' });
  assert.deepEqual(good, {
    ok: true,
    answer: { category: 'praise', message: 'Nice\nwork', affectedToolName: null, contactConsent: false, shareStreetAddresses: false },
  });
});

// The corpus (test/fixtures/scrub-corpus.ts): every shape people paste goes, every ordinary report stays.
import { NEGATIVES, POSITIVES } from '../../test/fixtures/scrub-corpus.ts';
import { scrubFeedbackText } from './scrub.ts';

for (const p of POSITIVES) {
  test(`scrub corpus, removed: ${p.name}`, async () => {
    const r = await scrubFeedbackText(p.input);
    assert.ok(!r.text.includes(p.secret), `${p.secret} survived in ${r.text}`);
    assert.ok(r.text.includes(p.placeholder), `${p.placeholder} missing from ${r.text}`);
    assert.ok(Object.keys(r.redactions).length > 0, 'counted');
    assert.equal((await scrubFeedbackText(r.text)).text, r.text, 'idempotent');
  });
}

for (const n of NEGATIVES) {
  test(`scrub corpus, kept: ${n}`, async () => {
    assert.deepEqual(await scrubFeedbackText(n), { text: n, redactions: {} });
  });
}

test("scrub: secretlint's recommended rules run in process and catch what our own patterns do not (a Linear key)", async () => {
  const input = 'linear lin_api_abcdefghijklmnopqrstuvwxyz0123456789AB here';
  assert.equal(scrubText(input).text, input, 'our own rules alone keep it');
  const r = await scrubFeedbackText(input);
  assert.equal(r.text, 'linear [removed: secret] here');
  assert.equal(r.redactions.api_token, 1);
});

test('scrub: spaced groups of three without the word SIN are kept (lot lists); with the word they go', () => {
  assert.equal(scrubText('lots 046 454 286 are merged').text, 'lots 046 454 286 are merged');
  assert.equal(scrubText('SIN 046 454 286').text, 'SIN [removed: SIN]');
});

// Issue 45: land-record ids that contain a phone's shape are kept; the same digits as a phone are not.
const digits = (n: number) => fc.stringMatching(new RegExp(`^[0-9]{${n}}$`));
const chicagoPin = fc.tuple(digits(2), digits(2), digits(3), digits(3), digits(4)).map((p) => p.join('-'));
const nanpPhone = fc.tuple(fc.integer({ min: 200, max: 999 }), fc.integer({ min: 200, max: 999 }), digits(4)).map(([a, b, c]) => `${a}-${b}-${c}`);

test('property: Chicago PINs, Cambridge map-lot ids and section numbers survive in any sentence', () => {
  const id = fc.oneof(
    chicagoPin,
    chicagoPin.map((p) => `PIN ${p.replace(/-/g, ' ')}`),
    chicagoPin.map((p) => `PIN ${p.replace(/-/g, '')}`),
    fc.tuple(fc.integer({ min: 1, max: 290 }), fc.integer({ min: 1, max: 400 })).map(([m, l]) => `ML ${m}-${l}`),
    fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 2, maxLength: 4 }).map((n) => `§${n.join('.')}`),
    nanpPhone.map((p) => `parcel ${p}`),
  );
  fc.assert(
    fc.property(sentence, id, sentence, (a, x, b) => {
      const s = `${a} ${x} ${b}`;
      assert.equal(scrubText(s).text, s);
    }),
    { numRuns: 400 },
  );
});

test('property: a phone number in a sentence is removed, also right after a Chicago PIN', () => {
  fc.assert(
    fc.property(sentence, nanpPhone, chicagoPin, (a, phone, pin) => {
      for (const s of [`${a} call ${phone} today`, `PIN ${pin}; my cell is ${phone}`, `${a} (${phone.slice(0, 3)}) ${phone.slice(4)}`]) {
        const r = scrubText(s);
        assert.ok(!r.text.includes(phone.slice(-8)), `${phone} survived in ${r.text}`);
        assert.equal(r.redactions.phone, 1, r.text);
      }
    }),
    { numRuns: 300 },
  );
});
