// Errors of the agent auth endpoints as typed values: the OAuth error code (RFC 6749), its description and the
// status the endpoint answers with. src/oauth/send-oauth-error.ts sends them.

export class AgentAuthError extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    readonly description: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(description);
    this.name = 'AgentAuthError';
  }
}

export const invalidRequest = (description: string) => new AgentAuthError(400, 'invalid_request', description);
export const invalidGrant = (description: string) => new AgentAuthError(400, 'invalid_grant', description);
