// The post-claim user JWT (scope `mcp`, audience the MCP resource, about one hour).
import crypto from 'node:crypto';
import { SignJWT } from 'jose';
import type { AppContext } from '../context.ts';
import { activeSigningKey } from './signing-keys.ts';
import { issuer, mcpResource } from './endpoints.ts';

export const USER_JWT_TTL_S = 3600;

/** The agent registration (linked agent or CLI login) a token was minted for: revoking that agent on the account page refuses it. */
export const AGENT_REGISTRATION_CLAIM = 'agent_registration';

export async function mintUserJwt(
  ctx: AppContext,
  opts: { accountId: string; scopes: string[]; clientId: string; registrationId?: string },
): Promise<{ token: string; expiresIn: number }> {
  const { kid, alg, key } = await activeSigningKey(ctx);
  const now = Math.floor(ctx.clock.now().getTime() / 1000);
  const token = await new SignJWT({
    scope: opts.scopes.join(' '),
    client_id: opts.clientId,
    ...(opts.registrationId ? { [AGENT_REGISTRATION_CLAIM]: opts.registrationId } : {}),
  })
    .setProtectedHeader({ alg, kid, typ: 'at+jwt' })
    .setIssuer(issuer(ctx.config))
    .setSubject(opts.accountId)
    .setAudience(mcpResource(ctx.config))
    .setIssuedAt(now)
    .setExpirationTime(now + USER_JWT_TTL_S)
    .setJti(crypto.randomUUID())
    .sign(key);
  return { token, expiresIn: USER_JWT_TTL_S };
}
