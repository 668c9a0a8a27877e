// /api/v1/keys (GET lists, POST creates) and /api/v1/keys/:id (DELETE revokes): the account's API keys.
// User tokens only: a key cannot mint or revoke keys.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createApiKey, listApiKeys, MAX_ACTIVE_KEYS, revokeApiKey } from '../billing/api-keys.ts';
import { sendProblem } from './problem.ts';
import { KeyCreateBody } from './schemas.ts';
import { API_PREFIX, sendJsonBody, type Authed, type RestKit } from './kit.ts';
import { common401_429, json, problem, ref, type PathItemsOf } from './openapi-parts.ts';

export const KEYS_PATH = `${API_PREFIX}/keys`;

export function registerKeys(kit: RestKit): void {
  const { ctx } = kit;

  async function keyManager(req: IncomingMessage, res: ServerResponse): Promise<Authed | null> {
    const authed = await kit.authenticate(req, res);
    if (!authed) return null;
    if (authed.caller.tokenType !== 'jwt') {
      sendProblem(ctx, req, res, 'forbidden', 'API keys cannot create, list or revoke keys. Use a user access token (scope mcp) or the account page.', authed.limit);
      return null;
    }
    return authed;
  }

  kit.route(KEYS_PATH, {
    GET: async (req, res) => {
      const authed = await keyManager(req, res);
      if (!authed) return;
      sendJsonBody(res, 200, { keys: await listApiKeys(ctx, authed.caller.accountId) }, authed.limit);
    },
    POST: async (req, res) => {
      const authed = await keyManager(req, res);
      if (!authed) return;
      const body = await kit.readJson(req, res);
      if (!body.ok) return;
      const parsed = KeyCreateBody.safeParse(body.value);
      if (!parsed.success) return kit.invalid(req, res, parsed.error, authed.limit);
      const created = await createApiKey(ctx, authed.caller.accountId, parsed.data.name);
      sendJsonBody(res, 201, created, { ...authed.limit, location: `${KEYS_PATH}/${created.id}` });
    },
  });

  kit.route(`${KEYS_PATH}/:id`, {
    DELETE: async (req, res, params) => {
      const authed = await keyManager(req, res);
      if (!authed) return;
      if (!(await revokeApiKey(ctx, authed.caller.accountId, params.id ?? ''))) {
        return sendProblem(ctx, req, res, 'not_found', `This account holds no key with id "${params.id}".`, authed.limit);
      }
      res.writeHead(204, { ...authed.limit, 'cache-control': 'no-store' });
      res.end();
    },
  });
}

export const keysPaths: PathItemsOf = () => ({
  [KEYS_PATH]: {
    get: {
      operationId: 'listKeys',
      'x-credential': 'user_token',
      summary: 'List the account\'s API keys (user token only)',
      responses: { '200': json('ApiKeyList', 'Every key, revoked ones included; never the keys themselves.'), ...common401_429, '403': problem('forbidden', 'Keys cannot manage keys.') },
    },
    post: {
      operationId: 'createKey',
      'x-credential': 'user_token',
      summary: `Create an API key (user token only; at most ${MAX_ACTIVE_KEYS} active keys)`,
      requestBody: { required: true, content: { 'application/json': { schema: ref('ApiKeyCreateRequest'), example: { name: 'production' } } } },
      responses: {
        '201': json('ApiKeyCreated', 'The new key; `key` is shown this once.'),
        '400': problem('bad_request'),
        ...common401_429,
        '403': problem('forbidden', 'Keys cannot create keys.'),
        '409': problem('conflict', `The account already holds ${MAX_ACTIVE_KEYS} active keys.`),
      },
    },
  },
  [`${KEYS_PATH}/{id}`]: {
    delete: {
      operationId: 'revokeKey',
      'x-credential': 'user_token',
      summary: 'Revoke an API key at once, on every instance (user token only)',
      parameters: [{ name: 'id', in: 'path', required: true, description: 'The key\'s id, as listKeys shows it.', schema: { type: 'string' }, example: 'key_3kTn0bq8yQ2vW5xZ' }],
      responses: { '204': { description: 'Revoked (revoking twice is fine).' }, ...common401_429, '403': problem('forbidden'), '404': problem('not_found', 'The account holds no key with this id.') },
    },
  },
});
