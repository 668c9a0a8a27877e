// Database errors are logged with their SQLSTATE and statement name only: neither a failing sign-up's
// e-mail and argon2 hash nor an OAuth storage failure's code or token reaches a log line. Every test
// file using the harness also runs the log guard (test/support/log-capture.ts) over all it logged.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { auth } from '@modelcontextprotocol/client';
import { hash } from '@node-rs/argon2';
import { startTestServer } from '../support/harness.ts';
import { logLine, logLines, secretsInLog } from '../support/log-capture.ts';
import { signUpOrIn } from '../support/auth-flow.ts';
import { authorizeWithConsent } from '../support/oauth-flow.ts';
import { DbQueryError, statementName } from '../../src/db/database.ts';

test('a database error carries the SQLSTATE and statement name, never the parameters', async () => {
  const svc = await startTestServer();
  try {
    const secretEmail = 'nul\u0000secret-mailbox@example.com';
    const argon = await hash('a password nobody logs', { algorithm: 2 });
    const from = logLines.length;
    let caught: unknown;
    try {
      await svc.ctx.db.query('INSERT INTO accounts (account_id, email, password_hash, created_at) VALUES ($1, $2, $3, $4)', [
        crypto.randomUUID(),
        secretEmail,
        argon,
        new Date().toISOString(),
      ]);
    } catch (err) {
      caught = err;
    }
    assert.ok(caught instanceof DbQueryError, String(caught));
    assert.equal(caught.code, '22021');
    assert.equal(caught.statement, 'INSERT accounts');
    svc.ctx.logger.error({ err: caught }, 'unexpected failure');
    const lines = logLines.slice(from);
    assert.ok(
      lines.some((l) => l.includes('22021') && l.includes('INSERT accounts')),
      lines.join('\n'),
    );
    assert.deepEqual(secretsInLog(lines, ['secret-mailbox', argon]), []);
    // Also a driver error logged without passing through the database layer: its data fields are dropped.
    const raw = Object.assign(new Error('invalid input'), {
      code: '22021',
      params: [secretEmail, argon],
      query: 'INSERT',
      detail: `Key (email)=(${secretEmail})`,
    });
    svc.ctx.logger.error({ err: raw }, 'raw driver error');
    assert.deepEqual(secretsInLog(logLines.slice(from), ['secret-mailbox', argon]), []);
  } finally {
    await svc.close();
  }
});

test('statementName names the verb and table', () => {
  assert.equal(statementName('  insert into accounts (a) values ($1)'), 'INSERT accounts');
  assert.equal(statementName('SELECT x FROM sign_in_failures WHERE y'), 'SELECT sign_in_failures');
  assert.equal(statementName('UPDATE oidc_models SET payload = $1'), 'UPDATE oidc_models');
  assert.equal(statementName('DELETE FROM web_sessions WHERE a = $1'), 'DELETE web_sessions');
});

test('an OAuth storage failure is logged without the code, tokens or payload', async () => {
  const svc = await startTestServer();
  try {
    const base = svc.ctx.config.baseUrl;
    const jar = await signUpOrIn(base, 'storage.failure@example.com');
    const { client, serverUrl, code, iss } = await authorizeWithConsent(svc.url, base, jar);
    // The storage starts refusing the write that consumes an authorization code (a failing disk, a
    // lost connection): the driver's error holds the code and the stored payload.
    await svc.ctx.db.query(
      `ALTER TABLE oidc_models ADD CONSTRAINT test_storage_down CHECK (NOT (model = 'AuthorizationCode' AND payload ? 'consumed')) NOT VALID`,
    );
    const from = logLines.length;
    await assert.rejects(auth(client, { serverUrl, authorizationCode: code, iss }));
    // The provider logs the failure from its error listener, possibly after the answer: awaited.
    const failure = await logLine((l) => l.includes('oauth provider error'), from);
    const lines = logLines.slice(from);
    assert.match(failure, /oidc storage AuthorizationCode\.consume/);
    assert.match(failure, /23514/);
    assert.deepEqual(secretsInLog(lines, [code]), []);
  } finally {
    await svc.close();
  }
});
