// The credential shapes the feedback scrubber removes (src/feedback/scrub.ts runs them, in this order,
// after secretlint's recommended rules). Each pattern is written here from the issuer's documented
// format; none is copied from another project. Three families:
//   - siteline's own secrets and one-use links, by the shapes src/auth, src/billing and src/reports give
//     them (test/security/feedback-scrub-corpus.test.ts feeds real ones, issued by the running server);
//   - vendors' keys whose shape is their own (Google, Twilio, SendGrid, Mapbox, Azure, npm, ...);
//   - secrets said in words or written as settings: `Authorization:` headers, `curl -u`, URL user
//     info and signed URL parameters, `KEY=value` in any naming style (.env, JSON, YAML, npmrc),
//     "my password is ..." in a dozen languages, and a long random token right after a credential word.

export type CredentialKind = 'private_key' | 'jwt' | 'bearer_token' | 'basic_auth' | 'siteline_secret' | 'api_token' | 'url_credential' | 'password';

export interface Rule<K extends string = string> {
  kind: K;
  pattern: RegExp;
  /** The replacement, or null to keep the match. `at` is the match's offset in `whole`. */
  replace: (match: string, groups: string[], at: number, whole: string) => string | null;
}

// ---- siteline's own -------------------------------------------------------------------------------
// src/auth/secrets.ts newSecret(): `<prefix>_<43 base64url>` for claim tokens (clm), assertions (slia),
// opaque pre-claim tokens (slpt), web sessions (sls), password-reset links (slpr), e-mail-change links
// (slec); API keys are `sl_live_<base62 body + checksum>` (src/billing/api-keys.ts), `sl_test_` alike.
const SITELINE_SECRET = /\b(?:sl_live|sl_test|clm|slia|slpt|sls|slpr|slec)_[A-Za-z0-9_-]{6,}/g;
// An e-mail verification token (src/auth/email-verification.ts): `<link id, 22>.<expiry>.<HMAC, 43>`.
const SITELINE_VERIFY_TOKEN = /(?<![A-Za-z0-9_-])[A-Za-z0-9_-]{22}\.\d{9,12}\.[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/g;
// Whatever follows one of siteline's one-use link paths is the secret, even cut short or mangled.
const SITELINE_LINK_PATH = /(\/(?:verify-email|reset-password|confirm-email-change)\/)(?!\[removed)([A-Za-z0-9._~%-]{8,})/g;

// ---- URLs ---------------------------------------------------------------------------------------
// user:password@ in any scheme's URL (database URLs, git remotes, proxies).
const URL_USERINFO = /\b([a-z][a-z0-9+.-]{1,20}:\/\/)([^\s:/@"'<>]+):(?!\[removed)([^\s/@"'<>]+)@/gi;
// Query parameters that carry a credential or a signature: siteline's signed report links
// (`?expires=…&sig=…`, src/reports/signed-url.ts), Azure SAS, S3 and GCS presigned URLs, OAuth
// callbacks (`code=`), tokens and keys passed in the query string.
const URL_SECRET_PARAM =
  /([?&#;](?:sig|signature|x-amz-signature|x-amz-credential|x-amz-security-token|x-goog-signature|x-goog-credential|token|access_token|refresh_token|id_token|code|client_secret|api_key|apikey|key|password|pwd|secret|auth)=)(?!\[removed)([^&#\s"'<>]+)/gi;
/** `code` and `key` are also ordinary words in a query string: only a long value counts. */
const shortParamAllowed = (param: string) => /^[?&#;](?:code|key)=$/i.test(param);

// ---- Authorization headers and command lines ---------------------------------------------------------
const JWT = /\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g;
const BEARER = /\b(Bearer)\s+(?!\[removed)[A-Za-z0-9._~+/-]{8,}=*/gi;
const BASIC = /\b(Basic)\s+([A-Za-z0-9+/]{6,}={0,2})(?![A-Za-z0-9+/=])/g;
// Any other scheme after an Authorization header (Token, Digest, ApiKey, SharedKey...) or none at all.
const AUTH_HEADER =
  /\b((?:proxy-)?authorization)(\s*["']?\s*[:=]\s*["']?\s*)(?:([A-Za-z][A-Za-z0-9-]*)\s+)?(?!\[removed|[A-Za-z][A-Za-z0-9-]*\s+\[removed)([^\s"',;]+)/gi;
// curl -u user:pass, --user user:pass, --proxy-user user:pass.
const CLI_USER = /((?:^|\s)(?:-u|--user|--proxy-user)(?:\s+|=))(["']?)([^\s:"']+):(?!\[removed)([^\s"']+)\2/g;
// --password x, --token=x, --api-key x ...
const CLI_FLAG =
  /((?:^|\s)--?(?:password|passwd|pass|token|api-key|apikey|secret|client-secret|access-token|auth-token)(?:\s+|=))(["']?)(?!\[removed)([^\s"']+)\2/gi;
// mysql -pSECRET (no space: `-p` alone asks for it), sshpass -p SECRET.
const CLI_INLINE_P = /(\b(?:mysql|mysqldump|mysqladmin|mariadb)\b[^\n]*?\s-p|\bsshpass\s+-p\s*)(?!\[removed)([^\s"'-][^\s"']*)/g;

// ---- vendors' keys with a shape of their own ------------------------------------------------------------
const VENDOR_TOKEN = new RegExp(
  [
    // AWS access key ids
    String.raw`\b(?:A3T[A-Z0-9]|AKIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|ASIA)[A-Z0-9]{16}\b`,
    // GitHub classic and fine-grained tokens; GitLab personal access tokens
    String.raw`\bgh[pousr]_[A-Za-z0-9]{30,255}\b`,
    String.raw`\bgithub_pat_[A-Za-z0-9_]{22,255}`,
    String.raw`\bglpat-[A-Za-z0-9_-]{20,}`,
    // OpenAI and Anthropic keys
    String.raw`\bsk-(?:proj-|svcacct-|admin-|ant-)?[A-Za-z0-9_-]{20,}`,
    // Slack tokens and webhooks; Discord webhooks; Telegram bot tokens
    String.raw`\bxox[abposre]-[A-Za-z0-9-]{10,}`,
    String.raw`https://hooks\.slack\.com/services/[A-Za-z0-9/_-]+`,
    String.raw`https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d+/[A-Za-z0-9_-]+`,
    String.raw`\b\d{8,10}:AA[A-Za-z0-9_-]{33}\b`,
    // Stripe keys and webhook secrets
    String.raw`\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{10,}`,
    String.raw`\bwhsec_[A-Za-z0-9]{10,}`,
    // Google: API keys, OAuth client secrets, OAuth access and refresh tokens
    String.raw`\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])`,
    String.raw`\bGOCSPX-[0-9A-Za-z_-]{20,}`,
    String.raw`\bya29\.[0-9A-Za-z_-]{20,}`,
    String.raw`\b1//0[0-9A-Za-z_-]{30,}`,
    // Twilio account and API key SIDs
    String.raw`\b(?:AC|SK)[0-9a-fA-F]{32}\b`,
    // SendGrid: SG.<22>.<43>
    String.raw`\bSG\.[\w-]{22}\.[\w-]{43}(?![\w-])`,
    // Mapbox public, secret and temporary tokens: pk./sk./tk. + a base64url JSON header + a signature
    String.raw`\b(?:pk|sk|tk)\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}`,
    // Microsoft Entra (Azure AD) client secrets: three characters, a digit, "Q~", then 31-34
    String.raw`(?<![A-Za-z0-9_~.-])[A-Za-z0-9_~.-]{3}\dQ~[A-Za-z0-9_~.-]{31,34}(?![A-Za-z0-9_~.-])`,
    // npm, PyPI, Hugging Face, Shopify, DigitalOcean, Mailgun, Mailchimp
    String.raw`\bnpm_[A-Za-z0-9]{36}\b`,
    String.raw`\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}`,
    String.raw`\bhf_[A-Za-z]{34}\b`,
    String.raw`\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b`,
    String.raw`\bdop_v1_[a-f0-9]{64}\b`,
    String.raw`\bkey-[0-9a-f]{32}\b`,
    String.raw`\b[0-9a-f]{32}-us\d{1,2}\b`,
  ].join('|'),
  'g',
);

// ---- settings: KEY=value in any naming style -------------------------------------------------------------
// An identifier that holds a secret word somewhere (DB_PASSWORD, authToken, _authToken, AccountKey,
// client_secret, AWS_SECRET_ACCESS_KEY, "password"), then = : or =>, then the value (quoted or bare).
// The identifier is split into its words (snake, kebab, dotted, camel) and counts only when one of them
// is a secret word, or two in a row name a key: so "author" or "passage" are not read as secrets.
const SETTING = new RegExp(
  String.raw`(?<![\w.-])(_?[A-Za-z0-9_.-]{0,40}?(?:pass|pwd|pw|secret|token|credential|key|sas|signature)[A-Za-z0-9_.-]{0,40})` +
    String.raw`(\\?["']?\s*(?:[:=]|=>)\s*)(?!\\?["']?\[removed)(\\?"(?:[^"\\]|\\.)*?\\?"|'[^']*'|[^\s,;}\]]+)`,
  'gi',
);
const SECRET_WORDS = new Set([
  'password',
  'passwd',
  'pwd',
  'pw',
  'pass',
  'passphrase',
  'passcode',
  'secret',
  'secrets',
  'token',
  'credential',
  'credentials',
  'apikey',
  'accesskey',
  'privatekey',
  'accountkey',
  'authtoken',
  'sas',
  'passwort',
  'kennwort',
  'senha',
  'wachtwoord',
]);
const KEY_PAIRS = new Set([
  'api key',
  'access key',
  'private key',
  'secret key',
  'account key',
  'signing key',
  'master key',
  'encryption key',
  'license key',
  'subscription key',
  'access signature',
  'client secret',
]);

/** The words of an identifier: DB_PASSWORD -> db password; authToken -> auth token; AccountKey -> account key. */
function identifierWords(id: string): string[] {
  return id
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[\s_.-]+/)
    .filter(Boolean)
    .map((w) => w.toLowerCase());
}

// Words that end a run-together name: PGPASSWORD, MYSQLPASSWORD, authtoken, clientsecret.
const SECRET_ENDINGS = /(?:password|passwd|passphrase|passcode|secret|token|apikey|accesskey|privatekey|accountkey)$/;

function namesASecret(id: string): boolean {
  const words = identifierWords(id);
  if (words.some((w) => SECRET_WORDS.has(w) || SECRET_ENDINGS.test(w))) return true;
  return words.some((w, i) => i > 0 && KEY_PAIRS.has(`${words[i - 1]} ${w}`));
}

// ---- secrets said in words, in the languages people write to us in -------------------------------------
// "my password is hunter2", "my pw is …", "mi contraseña es …", "mein Passwort ist …", "mon mot de passe
// est …", "minha senha é …", "пароль: …", "密码是…". The word after the verb is kept when it describes the
// secret rather than being it ("is wrong", "es incorrecta", "ist falsch", "n'est pas"); otherwise removed.
const PROSE_WORDS = [
  'pass ?words?',
  'passwd',
  'pwd',
  'pw',
  'passcode',
  'passphrase',
  'api key',
  'secret key',
  'access key',
  'access token',
  'auth token',
  'token',
  'secret',
  'contraseña',
  'contrasena',
  'clave',
  'senha',
  'mot de passe',
  'mdp',
  'passwort',
  'kennwort',
  'wachtwoord',
  'hasło',
  'haslo',
  'parola',
  'lösenord',
  'losenord',
  'passord',
  'adgangskode',
  'salasana',
  'heslo',
  'jelszó',
  'jelszo',
  'şifre',
  'sifre',
  'пароль',
  'пароля',
  '密码',
  '密碼',
  'パスワード',
  '비밀번호',
].join('|');
const PROSE_VERBS = [
  'is',
  'was',
  'are',
  'would be',
  'reads',
  'of',
  'es',
  'era',
  'fue',
  'est',
  'était',
  'etait',
  'ist',
  'war',
  'lautet',
  'é',
  'e',
  'è',
  'foi',
  'jest',
  'był',
  'było',
  'är',
  'var',
  'er',
  'oli',
  'je',
  'bylo',
  'это',
  'был',
  'была',
  'было',
].join('|');
const PROSE_ADVERBS = 'now|still|just|ahora|todavía|maintenant|toujours|jetzt|noch|agora|ainda|ora|ancora|nu|nog|teraz|сейчас|теперь|еще|ещё';
const PASSWORD_PROSE = new RegExp(
  // Latin and Cyrillic words stand apart; Chinese, Japanese and Korean ones sit inside the sentence.
  `(?<![\\p{Script=Latin}\\p{Script=Cyrillic}\\p{N}_])(${PROSE_WORDS})` +
    `(\\s*[:：=]\\s*|\\s+(?:${PROSE_VERBS})\\s*[:：]?\\s+|\\s*(?:は|是|为|為|는|은|:)\\s*)` +
    `((?:(?:${PROSE_ADVERBS})\\s+)?)(["'“‘«„]?)([^\\s"'”’»“]{3,256})`,
  'giu',
);
const PROSE_NOT_SECRET = new RegExp(
  '^(?:' +
    [
      // English
      'not|wrong|correct|right|invalid|incorrect|rejected|too|being|the|a|an|still|fine|ok|okay|expired|required|reset|missing|empty|accepted|ignored|no|never',
      'always|only|same|different|changed|long|short|weak|strong|set|saved|stored|shown|visible|hidden|removed|lost|forgotten|gone|there|here|in|on|at|for',
      'from|with|what|which|that|this|it|of|my|your|our|their|its|now|also|just|valid|working|broken|good|bad|unknown|sent|used|needed|shared|displayed',
      'printed|logged|case-sensitive|new|old|locked|blocked|sent|asked|needed|generated|revoked|accepted|refused|declined|denied|required',
      // Spanish, Portuguese, Italian
      'incorrecta|incorrecto|correcta|correcto|válida|valida|válido|inválida|invalida|nueva|nuevo|vieja|demasiado|muy|la|el|mi|tu|su|una|un|caducada|errónea',
      'errada|errado|correta|correto|inválido|não|nao|minha|meu|uma|um|nova|antiga|expirada|sbagliata|sbagliato|corretta|corretto|non|troppo|il|mia|scaduta',
      // French, German, Dutch
      'faux|fausse|bon|bonne|mauvais|mauvaise|trop|pas|le|les|mon|ma|une|expiré|expirée|refusé|refusée|incorrecte|correcte|valide|nouveau|nouvelle',
      'falsch|richtig|korrekt|ungültig|gültig|abgelaufen|zu|nicht|kein|keine|mein|meine|dein|das|der|die|ein|eine|neu|alt|fout|onjuist|juist|niet|te|mijn|het|de|een',
      // Polish, Russian, Swedish
      'nieprawidłowe|błędne|poprawne|nie|moje|неверный|неправильный|верный|не|мой|слишком|fel|rätt|inte|mitt',
    ].join('|') +
    ')[.,;:!?)]*$',
  'iu',
);

// A long random-looking token soon after a credential word: "twilio auth token 9f8e…", "aws secret
// access key wJalr…". Digits-only runs (parcel ids, permits) are never taken: a token needs letters and
// digits, or both cases over 32 characters.
const CREDENTIAL_NEARBY = new RegExp(
  String.raw`(?<![\p{L}\p{N}_])(secret|token|password|passwd|pwd|pw|api[ _-]?key|access[ _-]?key|secret[ _-]?key|account[ _-]?key|auth|credentials?|sid|aws|twilio|azure|sendgrid|mapbox|npm)(?![\p{L}\p{N}_])` +
    String.raw`((?:[^\S\n]+[^\s\[]+){0,3}?[^\S\n]*[:=]?[^\S\n]*)(?!\[removed)([A-Za-z0-9+/_=~-]{16,})(?![A-Za-z0-9+/_=~.-])`,
  'giu',
);
// An AWS secret access key standing alone (pasted after its access key id): exactly 40 characters of
// base64 with upper and lower case and a digit, and few slashes (a path of 40 characters has several).
const AWS_SECRET_SHAPE = /(?<![A-Za-z0-9/+=_.-])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=_.-])/g;
const awsSecretShaped = (s: string) => /[a-z]/.test(s) && /[A-Z]/.test(s) && /\d/.test(s) && (s.match(/\//g)?.length ?? 0) <= 3;

function looksRandom(token: string): boolean {
  const letters = /[A-Za-z]/.test(token);
  const digits = /\d/.test(token);
  if (letters && digits) return true;
  return token.length >= 32 && /[a-z]/.test(token) && /[A-Z]/.test(token);
}

/** A Basic credential: after an Authorization header, or base64 that decodes to printable `user:password`. */
function basicCredential(b64: string, at: number, whole: string): boolean {
  if (/authorization\s*["']?\s*[:=]\s*["']?\s*$/i.test(whole.slice(Math.max(0, at - 40), at))) return true;
  const text = Buffer.from(b64, 'base64').toString('utf8');
  return /^[\x20-\x7e]+:[\x20-\x7e]*$/.test(text);
}

export const CREDENTIAL_RULES: Rule<CredentialKind>[] = [
  // Whole credentials first: a PEM block or a JWT holds digits and dots later rules could bite.
  {
    kind: 'private_key',
    pattern: /-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|$)/g,
    replace: () => '[removed: private key]',
  },
  { kind: 'siteline_secret', pattern: SITELINE_LINK_PATH, replace: (_m, [path]) => `${path}[removed: key]` },
  { kind: 'siteline_secret', pattern: SITELINE_VERIFY_TOKEN, replace: () => '[removed: key]' },
  { kind: 'siteline_secret', pattern: SITELINE_SECRET, replace: () => '[removed: key]' },
  { kind: 'url_credential', pattern: URL_USERINFO, replace: (_m, [scheme, user]) => `${scheme}${user}:[removed: secret]@` },
  {
    kind: 'url_credential',
    pattern: URL_SECRET_PARAM,
    replace: (_m, [param, value]) => (shortParamAllowed(param!) && value!.length < 16 ? null : `${param}[removed: secret]`),
  },
  { kind: 'jwt', pattern: JWT, replace: () => '[removed: token]' },
  { kind: 'bearer_token', pattern: BEARER, replace: (_m, [word]) => `${word} [removed: token]` },
  { kind: 'basic_auth', pattern: BASIC, replace: (_m, [word, b64], at, whole) => (basicCredential(b64!, at, whole) ? `${word} [removed: secret]` : null) },
  {
    kind: 'basic_auth',
    pattern: AUTH_HEADER,
    replace: (_m, [name, sep, scheme]) => `${name}${sep}${scheme ? `${scheme} ` : ''}[removed: secret]`,
  },
  { kind: 'api_token', pattern: VENDOR_TOKEN, replace: () => '[removed: token]' },
  { kind: 'password', pattern: CLI_USER, replace: (_m, [flag, quote, user]) => `${flag}${quote}${user}:[removed: secret]${quote}` },
  { kind: 'password', pattern: CLI_FLAG, replace: (_m, [flag, quote]) => `${flag}${quote}[removed: secret]${quote}` },
  { kind: 'password', pattern: CLI_INLINE_P, replace: (_m, [head]) => `${head}[removed: secret]` },
  {
    kind: 'password',
    pattern: SETTING,
    // "Token: expired" in a sentence says something about the token; "TOKEN=expired" is a value.
    replace: (_m, [key, sep, value]) => (!namesASecret(key!) || (/:\s/.test(sep!) && PROSE_NOT_SECRET.test(value!)) ? null : `${key}${sep}[removed: secret]`),
  },
  {
    kind: 'password',
    pattern: PASSWORD_PROSE,
    replace: (_m, [word, sep, adverb, quote, value]) =>
      PROSE_NOT_SECRET.test(value!) || value!.startsWith('[removed') ? null : `${word}${sep}${adverb}${quote}[removed: secret]`,
  },
  {
    kind: 'password',
    pattern: CREDENTIAL_NEARBY,
    replace: (_m, [word, between, token]) => (looksRandom(token!) ? `${word}${between}[removed: secret]` : null),
  },
  { kind: 'api_token', pattern: AWS_SECRET_SHAPE, replace: (m) => (awsSecretShaped(m) ? '[removed: token]' : null) },
];
