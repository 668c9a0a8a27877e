// Errors of the agent auth endpoints as typed values, sent once in RFC 6749 form:
// `{error, error_description}` with `Cache-Control: no-store`.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { requestId, sendJson } from '../http/respond.ts';

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

export const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' };

export function sendOAuthError(req: IncomingMessage, res: ServerResponse, err: AgentAuthError): void {
  sendJson(res, err.status, { error: err.error, error_description: err.description, ...err.extra, request_id: requestId(req) }, NO_STORE);
}

export const invalidRequest = (description: string) => new AgentAuthError(400, 'invalid_request', description);
export const invalidGrant = (description: string) => new AgentAuthError(400, 'invalid_grant', description);
