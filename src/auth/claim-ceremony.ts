// The claim ceremony: a human proves, on the service's own page, that an agent registration is
// theirs (signed in as the named e-mail, typing the 6-digit code). The agent polls the token endpoint.
//
//   registered ──start──▶ pending ──code ok──▶ claimed ──first poll──▶ delivered
//                           │ 15 min / 5 wrong codes ─▶ expired_token (restart with the same claim_token)
//   24 h without a claim ─▶ 410 claim_expired (restart at registration)
import crypto from 'node:crypto';
import type { AppContext } from '../context.ts';
import { AgentAuthError, invalidGrant } from './oauth-errors.ts';
import { secretHash, sixDigitCode } from './secrets.ts';
import { PATHS, SCOPE_MCP, url } from './endpoints.ts';
import {
  CEREMONY_TTL_S,
  CLAIM_MAX_DELIVERIES,
  CLAIM_POLL_INTERVAL_S,
  CLAIM_REDELIVERY_S,
  CLAIMED_ASSERTION_TTL_S,
  MAILS_PER_ADDRESS_PER_HOUR,
  MAX_WRONG_CODES,
  SLOW_DOWN_STEP_S,
} from './lifetimes.ts';
import { issueCredential, AGENT_CLIENT_ID, type TokenResponse } from './agent-credentials.ts';
import { mintUserJwt } from './user-jwt.ts';

export interface ClaimBlock {
  user_code: string;
  verification_uri: string;
  interval: number;
  expires_in: number;
}

interface RegistrationRow {
  registration_id: string;
  type: string;
  created_at: Date;
  claim_expires_at: Date;
  account_id: string | null;
  claimed_at: Date | null;
  claim_delivered_at: Date | null;
  ceremony_id: string | null;
  ceremony_email: string | null;
  user_code_hash: string | null;
  ceremony_expires_at: Date | null;
  failed_code_attempts: number;
  denied_at: Date | null;
  poll_interval_s: number;
  last_polled_at: Date | null;
  label: string | null;
}

const COLUMNS = `registration_id, type, created_at, claim_expires_at, account_id, claimed_at, claim_delivered_at, ceremony_id,
  ceremony_email, user_code_hash, ceremony_expires_at, failed_code_attempts, denied_at, poll_interval_s, last_polled_at, label`;

const ms = (d: Date | string | null) => (d === null ? NaN : new Date(d).getTime());
const codeHash = (ceremonyId: string, code: string) => secretHash(`${ceremonyId}:${code}`);
const claimExpired = () =>
  new AgentAuthError(410, 'claim_expired', 'This registration can no longer be claimed. Restart at registration (POST /api/auth/agent/identity).');

const CLAIM_NOTICE_SUBJECT = 'An agent asks to be linked to your siteline account';

/** Starts (or restarts) the ceremony of a registration for the named e-mail: a new code, a new URL. */
export async function startCeremony(ctx: AppContext, registrationId: string, email: string): Promise<ClaimBlock> {
  const now = ctx.clock.now();
  const ceremonyId = crypto.randomBytes(16).toString('base64url');
  const code = sixDigitCode();
  const expires = new Date(now.getTime() + CEREMONY_TTL_S * 1000);
  await ctx.db.query(
    `UPDATE agent_registrations SET ceremony_id = $2, ceremony_email = $3, user_code_hash = $4, ceremony_expires_at = $5,
       failed_code_attempts = 0, denied_at = NULL, poll_interval_s = $6, last_polled_at = NULL WHERE registration_id = $1`,
    [registrationId, ceremonyId, email, codeHash(ceremonyId, code), expires.toISOString(), CLAIM_POLL_INTERVAL_S],
  );
  const verificationUri = url(ctx.config, `${PATHS.claimPage}/${ceremonyId}`);
  // Anyone can name any address: at most MAILS_PER_ADDRESS_PER_HOUR notices per address, so the claim
  // endpoint cannot be used to flood a mailbox. The ceremony itself does not depend on the mail.
  const recent = await ctx.mailer.countSince(email, CLAIM_NOTICE_SUBJECT, new Date(now.getTime() - 3600_000));
  if (recent < MAILS_PER_ADDRESS_PER_HOUR)
    await ctx.mailer.send({
      to: email,
      subject: CLAIM_NOTICE_SUBJECT,
      text:
        `An agent asked to act for the siteline account ${email}.\n\n` +
        `If that was you, open ${verificationUri}, sign in (or sign up) with this address, and type the 6-digit code your agent shows you.\n` +
        `The request expires at ${expires.toISOString()}. If you did not ask for this, ignore this message: nothing happens without the code.\n`,
    });
  return { user_code: code, verification_uri: verificationUri, interval: CLAIM_POLL_INTERVAL_S, expires_in: CEREMONY_TTL_S };
}

async function registrationByClaimToken(ctx: AppContext, claimToken: string): Promise<RegistrationRow | undefined> {
  const rows = await ctx.db.query<RegistrationRow>(`SELECT ${COLUMNS} FROM agent_registrations WHERE claim_token_hash = $1`, [secretHash(claimToken)]);
  return rows[0];
}

/** The claim endpoint: starts or restarts the ceremony for `email`. */
export async function startClaim(ctx: AppContext, claimToken: string, email: string): Promise<{ email: string; claim: ClaimBlock }> {
  const reg = await registrationByClaimToken(ctx, claimToken);
  if (!reg) throw new AgentAuthError(400, 'invalid_grant', 'The claim_token is unknown.');
  if (reg.account_id) throw new AgentAuthError(409, 'already_claimed', 'This registration has already been claimed.');
  if (ms(reg.claim_expires_at) <= ctx.clock.now().getTime()) throw claimExpired();
  const claim = await startCeremony(ctx, reg.registration_id, email);
  ctx.logger.info({ registrationId: reg.registration_id }, 'claim ceremony started');
  return { email, claim };
}

/** The claim grant at the token endpoint (RFC 8628 polling semantics). */
export async function pollClaim(ctx: AppContext, claimToken: string): Promise<TokenResponse> {
  const now = ctx.clock.now();
  // The JWT is signed after the transaction: PGlite has one connection, so no ctx.db call may run inside it.
  const claimed = await ctx.db.transaction(async (tx) => {
    const rows = await tx.query<RegistrationRow>(`SELECT ${COLUMNS} FROM agent_registrations WHERE claim_token_hash = $1 FOR UPDATE`, [secretHash(claimToken)]);
    const reg = rows[0];
    if (!reg) throw invalidGrant('The claim_token is unknown. Restart at registration.');
    if (reg.account_id) {
      if (reg.claim_delivered_at) {
        if (now.getTime() - ms(reg.claim_delivered_at) > CLAIM_REDELIVERY_S * 1000) {
          throw invalidGrant(
            `This claim was completed and its tokens delivered more than ${CLAIM_REDELIVERY_S / 60} minutes ago. Use the identity assertion delivered then, or restart at registration.`,
          );
        }
        // A repeated poll soon after delivery (the answer may have been lost): deliver again. The
        // earlier deliveries stay valid (two overlapping polls must not revoke the one the agent
        // kept); at most CLAIM_MAX_DELIVERIES assertions in all.
        const [delivered] = await tx.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM agent_credentials WHERE registration_id = $1 AND kind = 'assertion' AND scopes = $2 AND created_at >= $3`,
          [reg.registration_id, SCOPE_MCP, new Date(reg.claim_delivered_at).toISOString()],
        );
        if (delivered!.n >= CLAIM_MAX_DELIVERIES) {
          throw invalidGrant(
            `This claim's tokens were already delivered ${delivered!.n} times. Use an identity assertion delivered then, or restart at registration.`,
          );
        }
      } else {
        await tx.query('UPDATE agent_registrations SET claim_delivered_at = $2, last_used_at = $2 WHERE registration_id = $1', [
          reg.registration_id,
          now.toISOString(),
        ]);
      }
      const assertion = await issueCredential(tx, ctx, reg.registration_id, 'assertion', [SCOPE_MCP], CLAIMED_ASSERTION_TTL_S);
      return { accountId: reg.account_id, assertion, registrationId: reg.registration_id };
    }
    if (ms(reg.claim_expires_at) <= now.getTime()) throw claimExpired();
    const tooSoon = reg.last_polled_at !== null && now.getTime() - ms(reg.last_polled_at) < reg.poll_interval_s * 1000;
    const interval = tooSoon ? reg.poll_interval_s + SLOW_DOWN_STEP_S : reg.poll_interval_s;
    await tx.query('UPDATE agent_registrations SET last_polled_at = $2, poll_interval_s = $3 WHERE registration_id = $1', [
      reg.registration_id,
      now.toISOString(),
      interval,
    ]);
    // Returned, not thrown: a throw would roll back the poll time just recorded.
    if (tooSoon) return new AgentAuthError(400, 'slow_down', `Polling too fast: wait at least ${interval} seconds between polls.`, { interval });
    if (!reg.ceremony_id) {
      return new AgentAuthError(
        400,
        'authorization_pending',
        "No claim ceremony has started: call the claim endpoint with this claim_token and the human's e-mail.",
        {
          interval,
        },
      );
    }
    if (reg.denied_at) {
      return new AgentAuthError(400, 'access_denied', 'The human refused this claim on the claim page. Call the claim endpoint again only if they ask you to.');
    }
    if (ms(reg.ceremony_expires_at) <= now.getTime()) {
      return new AgentAuthError(400, 'expired_token', 'The claim ceremony expired. Call the claim endpoint again with the same claim_token.');
    }
    if (reg.failed_code_attempts >= MAX_WRONG_CODES) {
      return new AgentAuthError(
        400,
        'expired_token',
        'The claim ceremony was locked after too many wrong codes. Call the claim endpoint again with the same claim_token.',
      );
    }
    return new AgentAuthError(400, 'authorization_pending', 'The human has not completed the claim yet.', { interval });
  });
  if (claimed instanceof AgentAuthError) throw claimed;
  const { token, expiresIn } = await mintUserJwt(ctx, {
    accountId: claimed.accountId,
    scopes: [SCOPE_MCP],
    clientId: AGENT_CLIENT_ID,
    registrationId: claimed.registrationId,
  });
  return {
    access_token: token,
    token_type: 'Bearer',
    expires_in: expiresIn,
    scope: SCOPE_MCP,
    identity_assertion: claimed.assertion,
    identity_assertion_expires_in: CLAIMED_ASSERTION_TTL_S,
  };
}

export type CeremonyView =
  | { state: 'not_found' }
  | { state: 'claimed' }
  | { state: 'claim_expired' }
  | { state: 'ceremony_expired' }
  | { state: 'locked' }
  | { state: 'denied' }
  | { state: 'pending'; email: string; attemptsLeft: number; expiresAt: string; label: string | null };

function viewOf(reg: RegistrationRow | undefined, now: Date): CeremonyView {
  if (!reg?.ceremony_id) return { state: 'not_found' };
  if (reg.account_id) return { state: 'claimed' };
  if (ms(reg.claim_expires_at) <= now.getTime()) return { state: 'claim_expired' };
  if (reg.denied_at) return { state: 'denied' };
  if (ms(reg.ceremony_expires_at) <= now.getTime()) return { state: 'ceremony_expired' };
  if (reg.failed_code_attempts >= MAX_WRONG_CODES) return { state: 'locked' };
  return {
    state: 'pending',
    email: reg.ceremony_email ?? '',
    attemptsLeft: MAX_WRONG_CODES - reg.failed_code_attempts,
    expiresAt: new Date(reg.ceremony_expires_at!).toISOString(),
    // What registered (the CLI's "CLI on <host>", or the agent's own name), so the page says who asks.
    label: reg.label,
  };
}

/** What the claim page shows for a ceremony id. */
export async function findCeremony(ctx: AppContext, ceremonyId: string): Promise<CeremonyView> {
  const rows = await ctx.db.query<RegistrationRow>(`SELECT ${COLUMNS} FROM agent_registrations WHERE ceremony_id = $1`, [ceremonyId]);
  return viewOf(rows[0], ctx.clock.now());
}

export type ClaimOutcome =
  | CeremonyView
  | { state: 'email_mismatch' }
  | { state: 'email_unverified' }
  | { state: 'wrong_code'; attemptsLeft: number }
  | { state: 'done' }
  | { state: 'refused' };

/** The human says the request was not theirs: the agent's polls get access_denied. */
export async function denyClaim(ctx: AppContext, ceremonyId: string, account: { email: string }): Promise<ClaimOutcome> {
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    const rows = await tx.query<RegistrationRow>(`SELECT ${COLUMNS} FROM agent_registrations WHERE ceremony_id = $1 FOR UPDATE`, [ceremonyId]);
    const view = viewOf(rows[0], now);
    if (view.state !== 'pending') return view;
    if (view.email.toLowerCase() !== account.email.toLowerCase()) return { state: 'email_mismatch' };
    await tx.query('UPDATE agent_registrations SET denied_at = $2 WHERE registration_id = $1', [rows[0]!.registration_id, now.toISOString()]);
    ctx.logger.info({ registrationId: rows[0]!.registration_id }, 'agent claim refused by the human');
    return { state: 'refused' };
  });
}

/** The human's confirmation on the claim page. Revokes every pre-claim access token on success. */
export async function completeClaim(ctx: AppContext, ceremonyId: string, account: { accountId: string; email: string }, code: string): Promise<ClaimOutcome> {
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    const rows = await tx.query<RegistrationRow>(`SELECT ${COLUMNS} FROM agent_registrations WHERE ceremony_id = $1 FOR UPDATE`, [ceremonyId]);
    const reg = rows[0];
    const view = viewOf(reg, now);
    if (view.state !== 'pending' || !reg) return view;
    if (view.email.toLowerCase() !== account.email.toLowerCase()) return { state: 'email_mismatch' };
    // Only an account that proved control of its address links agents; a code typed before that is not counted.
    const [owner] = await tx.query<{ email_verified_at: Date | null }>('SELECT email_verified_at FROM accounts WHERE account_id = $1', [account.accountId]);
    if (!owner?.email_verified_at) return { state: 'email_unverified' };
    const given = codeHash(ceremonyId, code.replace(/\s+/g, ''));
    const stored = Buffer.from(reg.user_code_hash ?? '', 'hex');
    if (stored.length !== 32 || !crypto.timingSafeEqual(Buffer.from(given, 'hex'), stored)) {
      const updated = await tx.query<{ failed_code_attempts: number }>(
        'UPDATE agent_registrations SET failed_code_attempts = failed_code_attempts + 1 WHERE registration_id = $1 RETURNING failed_code_attempts',
        [reg.registration_id],
      );
      const left = MAX_WRONG_CODES - updated[0]!.failed_code_attempts;
      return left > 0 ? { state: 'wrong_code', attemptsLeft: left } : { state: 'locked' };
    }
    await tx.query('UPDATE agent_registrations SET account_id = $2, claimed_at = $3 WHERE registration_id = $1', [
      reg.registration_id,
      account.accountId,
      now.toISOString(),
    ]);
    await tx.query(`UPDATE agent_credentials SET revoked_at = $2 WHERE registration_id = $1 AND kind = 'access' AND revoked_at IS NULL`, [
      reg.registration_id,
      now.toISOString(),
    ]);
    ctx.logger.info({ registrationId: reg.registration_id }, 'agent registration claimed');
    return { state: 'done' };
  });
}
