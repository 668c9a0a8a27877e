// An agent auth error sent once in RFC 6749 form: `{error, error_description}` with `Cache-Control: no-store`.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendJson } from '../http/respond.ts';
import { requestId } from '../http/errors.ts';
import type { AgentAuthError } from '../auth/oauth-errors.ts';

export const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' };

export function sendOAuthError(req: IncomingMessage, res: ServerResponse, err: AgentAuthError): void {
  sendJson(res, err.status, { error: err.error, error_description: err.description, ...err.extra, request_id: requestId(req) }, NO_STORE);
}
