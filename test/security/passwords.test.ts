// NIST SP 800-63B passwords: length in characters, any characters, no composition rules; common
// (breached) passwords, whitespace-only, repeated or sequential ones and the e-mail itself are refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer } from '../support/harness.ts';
import { CookieJar, csrfFrom, getPage, postForm } from '../support/auth-flow.ts';
import { passwordProblem } from '../../src/auth/accounts.ts';

test('passwordProblem: refused and accepted passwords', () => {
  for (const weak of [
    '          ',
    'qwertyuiop',
    'Password123',
    '1234567890',
    'aaaaaaaaaaaa',
    'abcdefghijkl',
    'zyxwvutsrq',
    '1q2w3e4r5t',
    'short',
    'x'.repeat(300),
  ]) {
    assert.ok(passwordProblem(weak), `refused: ${JSON.stringify(weak.slice(0, 20))}`);
  }
  assert.ok(passwordProblem('jane.doe@example.com', 'Jane.Doe@example.com'), 'the e-mail itself');
  // No composition rules: lower-case words, spaces and any script are fine; length counts characters.
  for (const ok of ['correct horse battery staple', 'lowercaseonlybutlong', 'пароль без цифр', '🐢🐢🐢🐢🐢 turtles', 'ein langes Passwort']) {
    assert.equal(passwordProblem(ok), undefined, ok);
  }
  assert.ok(passwordProblem('🐢🐢🐢🐢🐢'), 'five characters (ten UTF-16 units) are too few');
});

test('sign-up refuses ten spaces and a breached password with a clear message', async () => {
  const svc = await startTestServer();
  try {
    const jar = new CookieJar();
    const csrf = csrfFrom((await getPage(`${svc.url}/signup`, jar)).body);
    const spaces = await postForm(`${svc.url}/signup`, jar, { csrf, email: 'nist@example.com', password: ' '.repeat(10) });
    assert.equal(spaces.status, 400);
    assert.match(spaces.body, /only spaces/);
    const breached = await postForm(`${svc.url}/signup`, jar, { csrf, email: 'nist@example.com', password: 'password123' });
    assert.equal(breached.status, 400);
    assert.match(breached.body, /commonly used/);
    const fine = await postForm(`${svc.url}/signup`, jar, { csrf, email: 'nist@example.com', password: 'plain lowercase words only' });
    assert.equal(fine.status, 303);
  } finally {
    await svc.close();
  }
});
