// /api/v1/keys (GET lists, POST creates) and /api/v1/keys/{id} (DELETE revokes): the account's API keys.
// User tokens only: a key cannot mint or revoke keys.
import { createRoute, z } from '@hono/zod-openapi';
import { createApiKey, listApiKeys, MAX_ACTIVE_KEYS, revokeApiKey } from '../billing/api-keys.ts';
import { KeyCreateBody } from './schemas.ts';
import { API_PREFIX, json, respond, type RestApi, type RestContext, type RestKit, bind } from './kit.ts';
import { common401_429, json as jsonResponse, problem } from './openapi-parts.ts';

export const KEYS_PATH = `${API_PREFIX}/keys`;

export const listKeysRoute = createRoute({
  method: 'get',
  path: KEYS_PATH,
  operationId: 'listKeys',
  'x-credential': 'user_token',
  summary: "List the account's API keys (user token only)",
  responses: {
    '200': jsonResponse('ApiKeyList', 'Every key, revoked ones included; never the keys themselves.'),
    ...common401_429,
    '403': problem('forbidden', 'Keys cannot manage keys.'),
  },
});

export const createKeyRoute = createRoute({
  method: 'post',
  path: KEYS_PATH,
  operationId: 'createKey',
  'x-credential': 'user_token',
  summary: `Create an API key (user token only; at most ${MAX_ACTIVE_KEYS} active keys)`,
  request: { body: { required: true, content: { 'application/json': { schema: KeyCreateBody, example: { name: 'production' } } } } },
  responses: {
    '201': jsonResponse('ApiKeyCreated', 'The new key; `key` is shown this once.'),
    '400': problem('bad_request'),
    ...common401_429,
    '403': problem('forbidden', 'Keys cannot create keys.'),
    '409': problem('conflict', `The account already holds ${MAX_ACTIVE_KEYS} active keys.`),
  },
});

export const revokeKeyRoute = createRoute({
  method: 'delete',
  path: `${KEYS_PATH}/{id}`,
  operationId: 'revokeKey',
  'x-credential': 'user_token',
  summary: 'Revoke an API key at once, on every instance (user token only)',
  request: { params: z.object({ id: z.string().openapi({ param: { description: "The key's id, as listKeys shows it.", example: 'key_3kTn0bq8yQ2vW5xZ' } }) }) },
  responses: {
    '204': { description: 'Revoked (revoking twice is fine).' },
    ...common401_429,
    '403': problem('forbidden'),
    '404': problem('not_found', 'The account holds no key with this id.'),
  },
});

export function registerKeys(api: RestApi, kit: RestKit): void {
  const { ctx } = kit;

  /** After the token check: only a user token manages keys. */
  async function userTokenOnly(c: RestContext, next: () => Promise<void>): Promise<Response | void> {
    const authed = c.get('authed');
    if (authed.caller.tokenType !== 'jwt') {
      return kit.problem(c, 'forbidden', 'API keys cannot create, list or revoke keys. Use a user access token (scope mcp) or the account page.', authed.limit);
    }
    await next();
  }
  const keyManager = [kit.authenticate, userTokenOnly];

  bind(api, { ...listKeysRoute, middleware: keyManager }, async (c) => {
    const authed = c.get('authed');
    return json(200, { keys: await listApiKeys(ctx, authed.caller.accountId) }, authed.limit);
  });

  bind(
    api,
    { ...createKeyRoute, middleware: [...keyManager, kit.jsonBody] },
    async (c) => {
      const authed = c.get('authed');
      const created = await createApiKey(ctx, authed.caller.accountId, c.req.valid('json').name);
      return json(201, created, { ...authed.limit, location: `${KEYS_PATH}/${created.id}` });
    },
    kit.invalidHook(),
  );

  bind(api, { ...revokeKeyRoute, middleware: keyManager }, async (c) => {
    const authed = c.get('authed');
    const { id } = c.req.valid('param');
    if (!(await revokeApiKey(ctx, authed.caller.accountId, id))) {
      return kit.problem(c, 'not_found', `This account holds no key with id "${id}".`, authed.limit);
    }
    return respond(204, null, { ...authed.limit, 'cache-control': 'no-store' });
  });
}
