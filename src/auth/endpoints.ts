// Every auth URL in one place, derived from the public base URL (read at call time: with port 0 the
// base URL is only known once the server listens).
import type { Config } from '../config.ts';

export const CLAIM_GRANT = 'urn:siteline:agent-auth:grant-type:claim';
export const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
export const SCOPE_PUBLIC = 'mcp.public';
export const SCOPE_MCP = 'mcp';

export const PATHS = {
  identity: '/api/auth/agent/identity',
  claim: '/api/auth/agent/identity/claim',
  token: '/api/auth/mcp/token',
  agentRevoke: '/api/auth/agent/revoke',
  jwks: '/api/auth/jwks',
  authorize: '/api/auth/oauth/authorize',
  register: '/api/auth/oauth/register',
  oauthRevoke: '/api/auth/oauth/revoke',
  oauthPrefix: '/api/auth/oauth',
  interaction: '/api/auth/oauth/interaction',
  claimPage: '/claim',
  protectedResource: '/.well-known/oauth-protected-resource',
  protectedResourceMcp: '/.well-known/oauth-protected-resource/api/mcp',
  authorizationServer: '/.well-known/oauth-authorization-server',
  openidConfiguration: '/.well-known/openid-configuration',
} as const;

export const issuer = (c: Config): string => c.baseUrl;
/** The MCP resource: the audience of every access token the service mints. */
export const mcpResource = (c: Config): string => `${c.baseUrl}/api/mcp`;
export const url = (c: Config, path: string): string => `${c.baseUrl}${path}`;
