// Discovery documents: protected-resource metadata (RFC 9728), authorization-server metadata
// (RFC 8414) with the agent_auth block, and the JWKS.
import type { AppContext } from '../context.ts';
import { CLAIM_GRANT, JWT_BEARER_GRANT, PATHS, SCOPE_MCP, SCOPE_PUBLIC, issuer, mcpResource, url } from './endpoints.ts';
import { loadSigningKeys, SIGNING_ALG } from './signing-keys.ts';
import { CLAIM_POLL_INTERVAL_S } from './lifetimes.ts';

export function protectedResourceMetadata(ctx: AppContext, forMcp: boolean): Record<string, unknown> {
  const c = ctx.config;
  return {
    resource: forMcp ? mcpResource(c) : c.baseUrl,
    authorization_servers: [issuer(c)],
    scopes_supported: [SCOPE_PUBLIC, SCOPE_MCP],
    bearer_methods_supported: ['header'],
    resource_name: 'siteline',
  };
}

export function authorizationServerMetadata(ctx: AppContext): Record<string, unknown> {
  const c = ctx.config;
  return {
    issuer: issuer(c),
    authorization_endpoint: url(c, PATHS.authorize),
    token_endpoint: url(c, PATHS.token),
    registration_endpoint: url(c, PATHS.register),
    revocation_endpoint: url(c, PATHS.oauthRevoke),
    jwks_uri: url(c, PATHS.jwks),
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token', JWT_BEARER_GRANT, CLAIM_GRANT],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'],
    revocation_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'],
    scopes_supported: [SCOPE_MCP, SCOPE_PUBLIC, 'offline_access'],
    resource_indicators_supported: true,
    client_id_metadata_document_supported: true,
    authorization_response_iss_parameter_supported: true,
    access_token_signing_alg_values_supported: [SIGNING_ALG],
    agent_auth: {
      register_uri: url(c, PATHS.identity),
      identity_endpoint: url(c, PATHS.identity),
      claim_uri: url(c, PATHS.claim),
      claim_endpoint: url(c, PATHS.claim),
      token_endpoint: url(c, PATHS.token),
      revocation_endpoint: url(c, PATHS.agentRevoke),
      identity_types_supported: ['anonymous', 'service_auth'],
      claim_grant_type: CLAIM_GRANT,
      assertion_grant_type: JWT_BEARER_GRANT,
      pre_claim_scopes: [SCOPE_PUBLIC],
      post_claim_scopes: [SCOPE_MCP],
      claim_poll_interval: CLAIM_POLL_INTERVAL_S,
    },
  };
}

export async function jwks(ctx: AppContext): Promise<{ keys: unknown[] }> {
  const { publicJwks } = await loadSigningKeys(ctx);
  return { keys: publicJwks };
}
