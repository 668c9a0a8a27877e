// The scrubber's corpus: what people paste into feedback that must not be stored, and ordinary
// zoning reports that must come through untouched. Driven through scrubText (unit) and through the
// real web form and MCP tool to /staff/feedback (test/security/feedback-scrub-corpus.test.ts).

export interface Positive {
  name: string;
  input: string;
  /** The secret or personal part: must not appear anywhere in what is stored. */
  secret: string;
  /** A placeholder the stored text must contain. */
  placeholder: string;
}

const PEM_BODY =
  'MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gunVTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u\n' +
  '+qKhbwKfBstIs+bMY2Zkp18gnTxKLxoS2tFczGkPLPgizskuemMghRniWaoLcyehkd3qqGElvW/VDL5AaWTg0nLVkjRo9z+40RQz\n' +
  'uVaE8AkAFmxZzow3x+VJYKdjykkJ0iT9wCS0DRTXu269V264Vf/3jvredZiKRkgwlL9xNAwxXFg0x/XFw005UWVRIkdgcKWTjpBP\n';

export const POSITIVES: Positive[] = [
  { name: 'JSON-quoted password', input: 'My config was {"user":"ada","password":"Tr0ub4dor&3"} and it failed', secret: 'Tr0ub4dor&3', placeholder: '"password":[removed: secret]' },
  { name: 'JSON-quoted api_key with spaces', input: 'sent { "api_key" : "abcDEF123456ghiJKL" } to the server', secret: 'abcDEF123456ghiJKL', placeholder: '[removed: secret]' },
  { name: 'escaped JSON in a log line', input: 'log: {\\"client_secret\\":\\"zq81kLm03\\"} end', secret: 'zq81kLm03', placeholder: '[removed: secret]' },
  { name: 'single-quoted key and value', input: "settings {'passwd': 'letmein42'} done", secret: 'letmein42', placeholder: '[removed: secret]' },
  { name: 'prose password', input: 'I cannot sign in, my password is hunter2hunter and it says wrong', secret: 'hunter2hunter', placeholder: 'password is [removed: secret]' },
  { name: 'prose password with "now"', input: 'I reset it, the password is now Summer2026! but still no luck', secret: 'Summer2026!', placeholder: '[removed: secret]' },
  { name: 'prose passcode quoted', input: 'The passcode was "x7y8z9" yesterday', secret: 'x7y8z9', placeholder: '[removed: secret]' },
  { name: 'PEM private key', input: `Here is the key:\n-----BEGIN RSA PRIVATE KEY-----\n${PEM_BODY}-----END RSA PRIVATE KEY-----\nthanks`, secret: 'u1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun', placeholder: '[removed:' },
  { name: 'PEM private key without its END line', input: `oops -----BEGIN PRIVATE KEY-----\n${PEM_BODY}`, secret: 'qKhbwKfBstIs', placeholder: '[removed: private key]' },
  { name: 'AWS access key id', input: 'aws key AKIAZ7VQ3MPL4XKD2RTY in us-east-1', secret: 'AKIAZ7VQ3MPL4XKD2RTY', placeholder: '[removed:' },
  { name: 'AWS secret access key', input: 'aws_secret_access_key = 9dKq2vN7xP0mR5tW8yB1cF4hJ6lZ3sA0eG7iU2oQ', secret: '9dKq2vN7xP0mR5tW8yB1cF4hJ6lZ3sA0eG7iU2oQ', placeholder: '[removed: secret]' },
  { name: 'GitHub classic token', input: 'token ghp_R8nX2kQ7vB4mZ9wL1cT6yH3pF0sJ5dG8aE2u for CI', secret: 'ghp_R8nX2kQ7vB4mZ9wL1cT6yH3pF0sJ5dG8aE2u', placeholder: '[removed:' },
  { name: 'GitHub fine-grained token', input: 'github_pat_11ABCDEFG0aBcDeFgHiJkL_mNoPqRsTuVwXyZ0123456789abcdefghijklmnopqrstuvwxyzABCDEF used', secret: 'github_pat_11ABCDEFG0aBcDeFgHiJkL', placeholder: '[removed:' },
  { name: 'OpenAI project key', input: 'OPENAI sk-proj-Ab3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6kM9nP2rS5uV8xA1 in env', secret: 'Ab3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6kM9nP2rS5uV8xA1', placeholder: '[removed:' },
  { name: 'OpenAI legacy key', input: 'key 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', secret: 'Xy7Qm2Lp9Rt4Vw8Zb3Nc', placeholder: '[removed:' },
  { name: 'Slack bot token', input: 'slack xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx works', secret: 'AbCdEfGhIjKlMnOpQrStUvWx', placeholder: '[removed:' },
  { name: 'Slack webhook URL', input: 'hook https://hooks.slack.com/services/T0AAAAAAA/B0BBBBBBB/abcdefghijklmnopqrstuvwx posts', secret: 'abcdefghijklmnopqrstuvwx', placeholder: '[removed:' },
  { name: 'Stripe secret key', input: 'stripe sk_live_51HqLyjWDarjtT1zdp7dcXzOZ7Q there', secret: '51HqLyjWDarjtT1zdp7dcXzOZ7Q', placeholder: '[removed:' },
  { name: 'URL with a password in it', input: 'db is postgres://admin:S3cretPassw0rd@db.internal:5432/app today', secret: 'S3cretPassw0rd', placeholder: '[removed:' },
  { name: 'SSN with dashes', input: 'my SSN 078-05-1121 was asked for', secret: '078-05-1121', placeholder: '[removed: SSN]' },
  { name: 'SSN with spaces', input: 'social 219 09 9999 on file', secret: '219 09 9999', placeholder: '[removed: SSN]' },
  { name: 'SSN as nine digits after the word', input: 'SSN: 078051121.', secret: '078051121', placeholder: '[removed: SSN]' },
  { name: 'SIN grouped (Luhn)', input: 'my SIN 046 454 286 for the permit', secret: '046 454 286', placeholder: '[removed: SIN]' },
  { name: 'SIN with dashes (Luhn, no label)', input: 'it was 527-331-011 on the form', secret: '527-331-011', placeholder: '[removed: SIN]' },
  { name: 'SIN in one run after the word', input: 'social insurance number: 046454286', secret: '046454286', placeholder: '[removed: SIN]' },
  { name: 'bare 10-digit phone', input: 'call me at 6175550123 tomorrow', secret: '6175550123', placeholder: '[removed: phone]' },
  { name: 'bare phone with leading 1', input: 'cell 16175550199.', secret: '6175550199', placeholder: '[removed: phone]' },
  { name: 'e-mail with non-ASCII local part', input: 'write to josé.núñez@correo.example.es please', secret: 'núñez', placeholder: '[removed: e-mail]' },
  { name: 'e-mail with a non-ASCII domain', input: 'contact: info@bücher.example.de now', secret: 'bücher', placeholder: '[removed: e-mail]' },
  { name: 'full-width e-mail', input: 'mail ａｄａ＠ｅｘａｍｐｌｅ．ｏｒｇ thanks', secret: 'ａｄａ', placeholder: '[removed: e-mail]' },
  { name: 'Cyrillic e-mail', input: 'пишите иван@почта.рф', secret: 'иван', placeholder: '[removed: e-mail]' },
  { name: 'card with dots', input: 'card 4111.1111.1111.1111 declined', secret: '4111.1111.1111.1111', placeholder: '[removed: card number]' },
  { name: 'card with underscores', input: 'card 5500_0000_0000_0004 declined', secret: '5500_0000_0000_0004', placeholder: '[removed: card number]' },
  { name: 'Amex with dots', input: 'amex 3782.822463.10005 ok', secret: '3782.822463.10005', placeholder: '[removed: card number]' },
];

/** Ordinary reports: stored exactly as typed. */
export const NEGATIVES: string[] = [
  'FAR 2.5 in C-2 but the bylaw says FAR 3.0; height 85 ft.',
  'Lots 251-258 on the plat are merged into one.',
  'Sec. 17-2-0300 sets the rear setback to 30 ft, section 5.31.2 says otherwise.',
  'Parcel 123-456-789 and parcel 130-692-544 are adjacent.',
  'APN 2125550175 is the one I mean.',
  'Permit no. 219-09-9999 was issued 2024-03-15.',
  'Dates: 2026-11-29, 11/29/2026 and 29.11.2026 all fine.',
  'Lot area 10000 sq ft, frontage 50 ft, depth 200 ft, 3 floors.',
  'The lot at number 42 on the corner of district R-3 overlay.',
  'Ward 7, precinct 12, block 1234, map 56 lot 78.',
  'Coordinates 42.3601, -71.0589 are in Cambridge.',
  'Zoning ordinance 2019-1234 amended Art. 4 Sec. 4.32.',
  'My password is wrong according to the site, please help.',
  'The password is not accepted after reset.',
  'Token expired after 1 hour; the API key is missing from the page.',
  'Version 2.4.0 of the MCP SDK, build 20261129.',
  'Height 12.5 m, 41 ft 0 in, setback 7.62 m.',
  'Scale 1:2500, sheet 14 of 20.',
  'I measured 4111 sq ft, 1111 ft of frontage.',
  'ISBN 978-0-596-52068-7 is the zoning handbook.',
  'The map pin is off by 50 m from the lot.',
  'The token is valid but the call fails with 401.',
];
