// GET /api/v1/usage: the calling account's balance, recent ledger entries, charges per day and the report
// export meter. Free.
import { usageOf } from '../billing/credit-ledger.ts';
import { purchasingEnabled } from '../billing/payments.ts';
import { exportUsage } from '../reports/export-store.ts';
import { API_PREFIX, CREDITS_CHARGED, CREDITS_REMAINING, sendJsonBody, type RestKit } from './kit.ts';
import { common401_429, json, rateHeaders, type PathItemsOf } from './openapi-parts.ts';

export const USAGE_PATH = `${API_PREFIX}/usage`;

export function registerUsage(kit: RestKit): void {
  const { ctx } = kit;
  kit.route(USAGE_PATH, {
    GET: async (req, res) => {
      const authed = await kit.authenticate(req, res);
      if (!authed) return;
      const [usage, exports] = await Promise.all([usageOf(ctx, authed.caller.accountId), exportUsage(ctx, authed.caller.accountId)]);
      const reportExports = { meter: 'records.exports', ...exports };
      sendJsonBody(res, 200, { ...usage, purchasing: { enabled: purchasingEnabled(ctx.config), how: kit.howToBuy() }, reportExports }, { ...authed.limit, [CREDITS_CHARGED]: '0', [CREDITS_REMAINING]: String(usage.balance) });
    },
  });
}

export const usagePaths: PathItemsOf = () => ({
  [USAGE_PATH]: {
    get: {
      operationId: 'usage',
      summary: 'Balance, recent ledger entries, charges per day and the report export meter (free)',
      responses: { '200': json('Usage', 'Usage of the calling account.', rateHeaders), ...common401_429 },
    },
  },
});
