// HTTP adapters of the agent flow: registration, claim, token endpoint (claim + jwt-bearer grants),
// revocation, and /api/auth/me. Bodies are validated here; the work happens in the core modules.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import type { AppContext } from '../context.ts';
import type { HttpApp } from '../http/http-app.ts';
import { sendJson } from '../http/respond.ts';
import { AgentAuthError, invalidRequest } from '../auth/oauth-errors.ts';
import { NO_STORE, sendOAuthError } from './send-oauth-error.ts';
import { readJsonOrForm } from './request-body.ts';
import { exchangeAssertion, labelFromUserAgent, registerIdentity, revokeAgentToken } from '../auth/agent-identity.ts';
import { pollClaim, startClaim } from '../auth/claim-ceremony.ts';
import { CLAIM_GRANT, JWT_BEARER_GRANT, PATHS } from '../auth/endpoints.ts';
import { verifyBearer, wwwAuthenticate } from '../auth/verify-bearer.ts';

const email = z
  .string()
  .trim()
  .max(254)
  .pipe(z.email())
  .transform((s) => s.toLowerCase());

/** An optional name the account page shows for this registration ("CLI on laptop", "Claude Desktop"). */
const label = z
  .string()
  .trim()
  .min(1)
  .max(80)
  .refine((s) => !/[\u0000-\u001f\u007f-\u009f]/.test(s), 'no control characters')
  .optional();

const registrationBody = z.discriminatedUnion('type', [
  z.object({ type: z.literal('anonymous'), label }),
  z.object({ type: z.literal('service_auth'), login_hint: email, label }),
]);

const claimBody = z.union([
  z.object({ type: z.literal('login_hint'), claim_token: z.string().min(1).max(200), login_hint: email }),
  z.object({ type: z.undefined().optional(), claim_token: z.string().min(1).max(200), email }),
]);

function issues(err: z.ZodError): string {
  return err.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; ');
}

/** Wraps a handler so AgentAuthError becomes an RFC 6749 error body. */
function oauthHandler(fn: (req: IncomingMessage, res: ServerResponse) => Promise<void>) {
  return async (req: IncomingMessage, res: ServerResponse) => {
    try {
      await fn(req, res);
    } catch (err) {
      if (err instanceof AgentAuthError) return sendOAuthError(req, res, err);
      throw err;
    }
  };
}

export type OtherGrantHandler = (req: IncomingMessage, res: ServerResponse, body: Record<string, unknown>) => Promise<void>;

// Node handlers: the token endpoint is shared with oidc-provider's node handler, which gets the grants it
// owns with the body this side already read (src/oauth/oauth-provider.ts handle).
export function registerAgentRoutes(app: HttpApp, ctx: AppContext, otherGrants: OtherGrantHandler | undefined): void {
  app.nodeRoute(
    'POST',
    PATHS.identity,
    oauthHandler(async (req, res) => {
      const body = await readJsonOrForm(req);
      if (body.type === 'identity_assertion') {
        throw new AgentAuthError(
          400,
          'unsupported_identity_type',
          'Identity type "identity_assertion" (ID-JAG) is not accepted. Register with type "anonymous" or "service_auth" (with login_hint).',
        );
      }
      if (typeof body.type !== 'string' || !['anonymous', 'service_auth'].includes(body.type)) {
        throw new AgentAuthError(400, 'unsupported_identity_type', 'Field "type" must be "anonymous" or "service_auth".');
      }
      const parsed = registrationBody.safeParse(body);
      if (!parsed.success) throw invalidRequest(`Invalid registration: ${issues(parsed.error)}. service_auth needs login_hint, the user's e-mail.`);
      // No name given (the curl of /connect): what registered it, so the account page reads "Agent registered with curl 8.5.0".
      const label = parsed.data.label ?? labelFromUserAgent(req.headers['user-agent']) ?? undefined;
      const out = await registerIdentity(
        ctx,
        parsed.data.type === 'anonymous' ? { type: 'anonymous', label } : { type: 'service_auth', loginHint: parsed.data.login_hint, label },
      );
      sendJson(res, 201, out, NO_STORE);
    }),
  );

  app.nodeRoute(
    'POST',
    PATHS.claim,
    oauthHandler(async (req, res) => {
      const parsed = claimBody.safeParse(await readJsonOrForm(req));
      if (!parsed.success) throw invalidRequest(`Send {claim_token, email} (or {type: "login_hint", claim_token, login_hint}): ${issues(parsed.error)}.`);
      const address = 'login_hint' in parsed.data ? parsed.data.login_hint : parsed.data.email;
      const out = await startClaim(ctx, parsed.data.claim_token, address);
      sendJson(res, 200, { status: 'claim_pending', ...out }, NO_STORE);
    }),
  );

  app.nodeRoute(
    'POST',
    PATHS.token,
    oauthHandler(async (req, res) => {
      const body = await readJsonOrForm(req);
      const grant = body.grant_type;
      if (grant === CLAIM_GRANT) {
        if (typeof body.claim_token !== 'string' || !body.claim_token) throw invalidRequest('The claim grant needs claim_token.');
        return sendJson(res, 200, await pollClaim(ctx, body.claim_token), NO_STORE);
      }
      if (grant === JWT_BEARER_GRANT) {
        if (typeof body.assertion !== 'string' || !body.assertion) throw invalidRequest('The jwt-bearer grant needs assertion=<identity_assertion>.');
        const scope = typeof body.scope === 'string' ? body.scope : undefined;
        return sendJson(res, 200, await exchangeAssertion(ctx, body.assertion, scope), NO_STORE);
      }
      if (typeof grant !== 'string' || !grant) throw invalidRequest('grant_type is required.');
      if (otherGrants && (grant === 'authorization_code' || grant === 'refresh_token')) return otherGrants(req, res, body);
      throw new AgentAuthError(400, 'unsupported_grant_type', `Grant type "${grant}" is not supported here.`);
    }),
  );

  app.nodeRoute(
    'POST',
    PATHS.agentRevoke,
    oauthHandler(async (req, res) => {
      const body = await readJsonOrForm(req);
      if (typeof body.token !== 'string' || !body.token) throw invalidRequest('Send the token to revoke in "token".');
      sendJson(res, 200, await revokeAgentToken(ctx, body.token), NO_STORE);
    }),
  );

  // Who a bearer is: used by `siteline whoami`, handy for any client.
  app.nodeRoute('GET', '/api/auth/me', async (req, res) => {
    const check = await verifyBearer(ctx, req.headers.authorization);
    if (check.kind !== 'valid') {
      const reason = check.kind === 'invalid' ? check.reason : 'A bearer token is required.';
      return sendJson(
        res,
        401,
        { error: 'invalid_token', error_description: reason },
        {
          ...NO_STORE,
          'www-authenticate': wwwAuthenticate(ctx, check.kind === 'invalid' ? { error: 'invalid_token' } : {}),
        },
      );
    }
    const c = check.caller;
    let emailAddr: string | null = null;
    if (c.accountId) {
      const rows = await ctx.db.query<{ email: string }>('SELECT email FROM accounts WHERE account_id = $1', [c.accountId]);
      emailAddr = rows[0]?.email ?? null;
    }
    sendJson(
      res,
      200,
      { subject: c.subject, account_id: c.accountId, email: emailAddr, scopes: c.scopes, token_type: c.tokenType, client_id: c.clientId ?? null },
      NO_STORE,
    );
  });
}
