// Revocation across two instances on one PostgreSQL database: a token used on instance B is refused
// there within the documented staleness bound (REVOCATION_STALENESS_MS) after the person signs out
// everywhere on instance A, and at once on A; the same for an agent revoked on B and used on A. Two real
// `siteline` processes (src/main.ts) sharing one base URL, so each accepts the other's tokens.
// The measured latency is printed. PostgreSQL only: PGlite serves one process.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import pg from 'pg';
import { ROOT, SHARED_DATA } from '../support/harness.ts';
import { listening, startSiteline, stop } from '../support/siteline-process.ts';
import { JWT_BEARER_GRANT, claimUserIdentity, csrfFrom, getPage, postForm, signUpOrIn, tokenRequest } from '../support/auth-flow.ts';
import { modernRequest, postRpc } from '../mcp-support.ts';
import { REVOCATION_STALENESS_MS } from '../../src/auth/token-revocation.ts';

const adminUrl = process.env.DATABASE_URL;

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** A port free right now (the base URL both instances share names the first one's). */
async function freePort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  const port = (srv.address() as net.AddressInfo).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

const mcpStatus = async (url: string, token: string) => (await postRpc(url, modernRequest('tools/list'), { authorization: `Bearer ${token}` })).status;

/** Polls B until it refuses the token; the wall time from the revocation's answer to B's first refusal. */
async function refusedAfter(url: string, token: string, since: number): Promise<number> {
  // Far past the bound, far below the token's hour: the old behaviour (an hour) fails here.
  const giveUp = since + 30_000;
  while (Date.now() < giveUp) {
    if ((await mcpStatus(url, token)) === 401) return Date.now() - since;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.fail('the other instance still accepted the revoked token after 30 s');
}

test('revocation across two instances: refused at once where it was made, within the staleness bound on the other', {
  skip: !adminUrl && 'PostgreSQL only',
  timeout: 180_000,
}, async () => {
  const name = `siteline_t_revoke_${crypto.randomBytes(5).toString('hex')}`;
  const dbUrl = new URL(adminUrl!);
  dbUrl.pathname = `/${name}`;
  const work = fs.mkdtempSync(path.join(ROOT, '.siteline-test', 'revoke-'));
  fs.mkdirSync(path.join(work, 'places'));
  await admin(`CREATE DATABASE ${name}`);
  const portA = await freePort();
  const envOf = (n: number): Record<string, string> => ({
    ...(process.env as Record<string, string>),
    DATABASE_URL: dbUrl.toString(),
    HOST: '127.0.0.1',
    PORT: n === 1 ? String(portA) : '0',
    // One issuer and audience for both (a loopback name, so the development outbox verifies e-mail).
    SITELINE_BASE_URL: `http://localhost:${portA}`,
    SITELINE_DATA_DIR: path.join(work, `data-${n}`),
    SITELINE_PLACES_DIR: path.join(work, 'places'),
    SITELINE_SOURCE_DIR: SHARED_DATA,
    SITELINE_AUTO_IMPORT: '0',
    SITELINE_ANALYSIS_WORKERS: '0',
    LOG_LEVEL: 'info',
  });
  // Start one after the other: the first applies the migrations.
  const a = startSiteline(envOf(1), work);
  const aUrl = await listening(a);
  const b = startSiteline(envOf(2), work);
  try {
    const bUrl = await listening(b);
    const latencies: number[] = [];

    // 1. Sign out everywhere on A; the token was last used on B (so B remembers it as good).
    const email = 'two-instances-revoke@example.com';
    const claimed = await claimUserIdentity(aUrl, email);
    const token = (await tokenRequest(aUrl, { grant_type: JWT_BEARER_GRANT, assertion: claimed.identityAssertion })).json.access_token as string;
    assert.equal(await mcpStatus(aUrl, token), 200);
    assert.equal(await mcpStatus(bUrl, token), 200, "B accepts A's token");
    const jar = await signUpOrIn(aUrl, email);
    const account = await getPage(`${aUrl}/account`, jar);
    const out = await postForm(`${aUrl}/signout/everywhere`, jar, { csrf: csrfFrom(account.body) });
    assert.equal(out.status, 303);
    const t1 = Date.now();
    assert.equal(await mcpStatus(aUrl, token), 401, 'refused at once on the instance that revoked');
    latencies.push(await refusedAfter(bUrl, token, t1));

    // 2. An agent revoked on B, its token last used on A.
    const email2 = 'two-instances-agent@example.com';
    const claimed2 = await claimUserIdentity(bUrl, email2);
    const tok2 = await tokenRequest(bUrl, { grant_type: JWT_BEARER_GRANT, assertion: claimed2.identityAssertion });
    const token2 = tok2.json.access_token as string;
    const reg = JSON.parse(Buffer.from(token2.split('.')[1]!, 'base64url').toString('utf8')).agent_registration as string;
    assert.equal(await mcpStatus(aUrl, token2), 200);
    const jar2 = await signUpOrIn(bUrl, email2);
    const page2 = await getPage(`${bUrl}/account`, jar2);
    assert.equal((await postForm(`${bUrl}/account/agents/${reg}/revoke`, jar2, { csrf: csrfFrom(page2.body) })).status, 303);
    const t2 = Date.now();
    assert.equal(await mcpStatus(bUrl, token2), 401, 'refused at once on the instance that revoked');
    latencies.push(await refusedAfter(aUrl, token2, t2));

    console.log(`# revocation latency across two instances: ${latencies.map((l) => `${l} ms`).join(', ')} (bound ${REVOCATION_STALENESS_MS} ms)`);
  } finally {
    await Promise.all([a, b].map((s) => stop(s)));
    await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    fs.rmSync(work, { recursive: true, force: true });
  }
});
