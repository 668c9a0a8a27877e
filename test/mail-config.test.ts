// @engine-independent: the mail configuration is decided before any database is opened.
// How mail leaves is configuration, checked by `npm start` before anything starts: a malformed
// SITELINE_SMTP_URL is exit 2 naming the variable (and never echoing a password in it); a public base
// URL without SMTP is exit 2 naming SITELINE_SMTP_URL, unless SITELINE_MAIL_OUTBOX=1 keeps the outbox.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { listening, startSiteline, stop } from './support/siteline-process.ts';
import { ROOT } from './support/harness.ts';
import { loadConfig } from '../src/config.ts';

function envFor(dir: string, extra: Record<string, string>): Record<string, string> {
  return {
    PATH: process.env['PATH'] ?? '',
    HOME: dir,
    SITELINE_DATA_DIR: path.join(dir, 'data'),
    SITELINE_AUTO_IMPORT: '0',
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    ...extra,
  };
}

for (const [why, extra] of [
  ['a malformed SMTP URL', { SITELINE_SMTP_URL: 'mail.example.org:587 user:hunter2-secret' }],
  ['an SMTP URL of another scheme', { SITELINE_SMTP_URL: 'https://user:hunter2-secret@mail.example.org' }],
  ['a public base URL without SMTP', { SITELINE_BASE_URL: 'https://siteline.example' }],
] as const) {
  test(`${why}: exit 2 naming SITELINE_SMTP_URL, before anything listens`, async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'siteline-mail-config-'));
    try {
      const s = startSiteline(envFor(dir, extra), ROOT);
      let stderr = '';
      s.child.stderr!.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
      const { code } = await s.exited;
      assert.equal(code, 2, stderr);
      assert.match(stderr, /^Invalid environment:/);
      assert.match(stderr, /\bSITELINE_SMTP_URL\b/);
      assert.doesNotMatch(stderr, /hunter2/, 'the password in the URL is not repeated');
      assert.doesNotMatch(stderr, /\n\s+at /, 'no stack trace');
      assert.equal(
        s.lines.find((l) => l['msg'] === 'listening'),
        undefined,
        'never listened',
      );
      assert.equal(fs.existsSync(path.join(dir, 'data', 'pgdata')), false, 'no database was opened');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
}

test('a public base URL with SITELINE_MAIL_OUTBOX=1 starts, mail in the development outbox', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'siteline-mail-config-'));
  const s = startSiteline(envFor(dir, { SITELINE_BASE_URL: 'https://siteline.example', SITELINE_MAIL_OUTBOX: '1' }), ROOT);
  try {
    await listening(s);
  } finally {
    await stop(s);
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('the transport each configuration gets', () => {
  assert.equal(loadConfig({}).mail.transport, 'outbox', 'loopback default: the outbox');
  assert.equal(loadConfig({ SITELINE_BASE_URL: 'https://siteline.example' }).mail.transport, 'none');
  const smtp = loadConfig({ SITELINE_BASE_URL: 'https://siteline.example', SITELINE_SMTP_URL: 'smtps://u:p@mail.example.org' }).mail;
  assert.equal(smtp.transport, 'smtp');
  assert.equal(smtp.from, 'siteline <siteline@siteline.example>', 'the default sender is on the base URL host');
  assert.throws(() => loadConfig({ SITELINE_MAIL_FROM: 'not an address' }), /SITELINE_MAIL_FROM/);
});
