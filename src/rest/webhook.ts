// POST /api/billing/stripe/webhook: Stripe's events (not part of the public API, so not in the document). A
// paid checkout credits the account; a refund or dispute takes the credit back (src/billing/payments.ts
// verifies the signature). Its errors are problems, like the API's.
import { readBody } from '../http/respond.ts';
import { applyStripeWebhook, purchasingEnabled } from '../billing/payments.ts';
import { json, type RestApi, type RestKit } from './kit.ts';
import { errorsAsProblems } from './problem.ts';

export const STRIPE_WEBHOOK_PATH = '/api/billing/stripe/webhook';
const WEBHOOK_BODY_MAX = 512 * 1024;

export function registerStripeWebhook(api: RestApi, kit: RestKit): void {
  const { ctx } = kit;
  api.post(
    STRIPE_WEBHOOK_PATH,
    errorsAsProblems(ctx, async (c) => {
      const req = c.env.incoming;
      if (!purchasingEnabled(ctx.config)) {
        req.resume();
        return kit.problem(c, 'not_found', 'Purchasing is not set up on this service.');
      }
      const raw = await readBody(req, WEBHOOK_BODY_MAX);
      const outcome = await applyStripeWebhook(ctx, raw, req.headers['stripe-signature'] as string | undefined);
      return json(
        200,
        outcome.kind === 'credited'
          ? { received: true, credited: outcome.result.credited }
          : outcome.kind === 'clawed_back'
            ? { received: true, clawedBack: outcome.result }
            : { received: true, ignored: outcome.reason },
      );
    }),
  );
}
