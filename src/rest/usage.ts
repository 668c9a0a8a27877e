// GET /api/v1/usage: the calling account's balance, recent ledger entries, charges per day and the report
// export meter. Free.
import { usageOf } from '../billing/credit-ledger.ts';
import { purchasingEnabled } from '../billing/payments.ts';
import { exportUsage } from '../reports/export-store.ts';
import { createRoute } from '@hono/zod-openapi';
import { API_PREFIX, CREDITS_CHARGED, CREDITS_REMAINING, json, type RestApi, type RestKit, bind } from './kit.ts';
import { common401_429, json as jsonResponse, rateHeaders } from './openapi-parts.ts';

export const USAGE_PATH = `${API_PREFIX}/usage`;

export const usageRoute = createRoute({
  method: 'get',
  path: USAGE_PATH,
  operationId: 'usage',
  summary: 'Balance, recent ledger entries, charges per day and the report export meter (free)',
  responses: { '200': jsonResponse('Usage', 'Usage of the calling account.', rateHeaders), ...common401_429 },
});

export function registerUsage(api: RestApi, kit: RestKit): void {
  const { ctx } = kit;
  bind(api, { ...usageRoute, middleware: [kit.authenticate] }, async (c) => {
    const authed = c.get('authed');
    const [usage, exports] = await Promise.all([usageOf(ctx, authed.caller.accountId), exportUsage(ctx, authed.caller.accountId)]);
    const reportExports = { meter: 'records.exports', ...exports };
    return json(
      200,
      { ...usage, purchasing: { enabled: purchasingEnabled(ctx.config), how: kit.howToBuy() }, reportExports },
      { ...authed.limit, [CREDITS_CHARGED]: '0', [CREDITS_REMAINING]: String(usage.balance) },
    );
  });
}
