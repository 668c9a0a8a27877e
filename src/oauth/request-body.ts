// Reads a small JSON or form-encoded body into a plain object, refusing anything else clearly.
import type { IncomingMessage } from 'node:http';
import { readBody } from '../http/respond.ts';
import { invalidRequest } from '../auth/oauth-errors.ts';

export const AUTH_BODY_LIMIT = 16 * 1024;

export async function readJsonOrForm(req: IncomingMessage, opts: { allowJson?: boolean; allowForm?: boolean } = {}): Promise<Record<string, unknown>> {
  const { allowJson = true, allowForm = true } = opts;
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  const raw = (await readBody(req, AUTH_BODY_LIMIT)).toString('utf8');
  if (type === 'application/x-www-form-urlencoded' && allowForm) return Object.fromEntries(new URLSearchParams(raw));
  if ((type === 'application/json' || (type === '' && raw.trim().startsWith('{'))) && allowJson) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      throw invalidRequest('The body is not valid JSON.');
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw invalidRequest('The body must be a JSON object.');
    return parsed as Record<string, unknown>;
  }
  const accepted = [allowForm && 'application/x-www-form-urlencoded', allowJson && 'application/json'].filter(Boolean).join(' or ');
  throw invalidRequest(`Unsupported content type "${type || 'none'}": send ${accepted}.`);
}
