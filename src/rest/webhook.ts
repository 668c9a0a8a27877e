// POST /api/billing/stripe/webhook: Stripe's events (not part of the public API). A paid checkout credits the
// account; a refund or dispute takes the credit back (src/billing/payments.ts verifies the signature).
import { readBody } from '../http/respond.ts';
import { applyStripeWebhook, purchasingEnabled } from '../billing/payments.ts';
import { sendProblem } from './problem.ts';
import { sendJsonBody, type RestKit } from './kit.ts';

export const STRIPE_WEBHOOK_PATH = '/api/billing/stripe/webhook';
const WEBHOOK_BODY_MAX = 512 * 1024;

export function registerStripeWebhook(kit: RestKit): void {
  const { ctx } = kit;
  kit.router.post(
    STRIPE_WEBHOOK_PATH,
    kit.guard(async (req, res) => {
      if (!purchasingEnabled(ctx.config)) {
        req.resume();
        return sendProblem(ctx, req, res, 'not_found', 'Purchasing is not set up on this service.');
      }
      const raw = await readBody(req, WEBHOOK_BODY_MAX);
      const outcome = await applyStripeWebhook(ctx, raw, req.headers['stripe-signature'] as string | undefined);
      sendJsonBody(
        res,
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
