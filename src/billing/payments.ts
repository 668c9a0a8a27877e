// Buying credit with Stripe Checkout (the `stripe` package). A signed-in account asks for N packs; a
// Checkout Session in payment mode is created with the account and the credits in its metadata; the
// buyer pays on Stripe's page; Stripe calls the webhook with checkout.session.completed, which is
// verified with the package's signature check and credits the ledger once per event id (Stripe
// redelivers until it gets a 2xx, so a redelivery must not credit again). Without STRIPE_SECRET_KEY
// and STRIPE_WEBHOOK_SECRET purchasing is off and the operator grants credit (`siteline credits grant`).
// A refund (charge.refunded) or a dispute (charge.dispute.created, charge.dispute.funds_withdrawn)
// takes the purchase's credit back in proportion, once per event id (clawBackCredit, docs/billing.md).
import Stripe from 'stripe';
import type { AppContext } from '../context.ts';
import type { Config } from '../config.ts';
import { SitelineError } from '../core/errors.ts';
import { accountVerified, UNVERIFIED_MESSAGE } from './verified-account.ts';
import { addCredit, clawBackCredit, type ClawbackResult, type CreditResult } from './credit-ledger.ts';

/** One pack: this many credits (answered snapshots) for PACK_PRICE_CENTS US cents. */
export const PACK_CREDITS = 1_000;
export const PACK_PRICE_CENTS = 1_000;
export const MAX_PACKS = 100;

const clients = new WeakMap<object, Stripe>();

function stripeClient(config: Config): Stripe {
  const s = config.stripe;
  if (!s) throw new SitelineError('unavailable', 'Purchasing is not set up on this service: ask its operator to grant credit (siteline credits grant).');
  let client = clients.get(s);
  if (!client) {
    const base = s.apiBase ? new URL(s.apiBase) : undefined;
    client = new Stripe(s.secretKey, {
      maxNetworkRetries: 1,
      timeout: 20_000,
      telemetry: false,
      ...(base
        ? { host: base.hostname, port: base.port || (base.protocol === 'https:' ? 443 : 80), protocol: base.protocol === 'http:' ? 'http' : 'https' }
        : {}),
    });
    clients.set(s, client);
  }
  return client;
}

export function purchasingEnabled(config: Config): boolean {
  return config.stripe !== undefined;
}

/** Creates a Checkout Session for `packs` packs; returns the URL to send the buyer to. */
export async function createCheckout(
  ctx: AppContext,
  account: { accountId: string; email: string },
  packs: number,
): Promise<{ url: string; sessionId: string }> {
  if (!Number.isInteger(packs) || packs < 1 || packs > MAX_PACKS)
    throw new SitelineError('bad_input', `Buy 1 to ${MAX_PACKS} packs of ${PACK_CREDITS} credits at a time.`);
  if (!(await accountVerified(ctx, account.accountId))) throw new SitelineError('forbidden', UNVERIFIED_MESSAGE);
  const stripe = stripeClient(ctx.config);
  const credits = packs * PACK_CREDITS;
  const base = ctx.config.baseUrl;
  const session = await stripe.checkout.sessions.create({
    mode: 'payment',
    client_reference_id: account.accountId,
    customer_email: account.email,
    line_items: [
      {
        quantity: packs,
        price_data: {
          currency: 'usd',
          unit_amount: PACK_PRICE_CENTS,
          product_data: { name: `siteline API credits (${PACK_CREDITS.toLocaleString('en-US')} snapshots)` },
        },
      },
    ],
    metadata: { siteline_account: account.accountId, siteline_credits: String(credits) },
    // Carried onto the PaymentIntent and its charge, so a refund or dispute names the purchase even
    // when the completed-session event was never processed.
    payment_intent_data: { metadata: { siteline_account: account.accountId, siteline_credits: String(credits) } },
    success_url: `${base}/account/api-keys?purchase=done`,
    cancel_url: `${base}/account/api-keys?purchase=cancelled`,
  });
  if (!session.url) throw new SitelineError('unavailable', 'The payment provider returned no checkout page; try again.');
  return { url: session.url, sessionId: session.id };
}

export type WebhookOutcome =
  | { kind: 'credited'; accountId: string; credits: number; result: CreditResult }
  | { kind: 'clawed_back'; result: ClawbackResult }
  | { kind: 'ignored'; reason: string };

/**
 * Verifies and applies one webhook delivery. A bad signature throws (the route answers 400 so the
 * sender sees it); an event siteline does not act on is acknowledged and ignored.
 */
export async function applyStripeWebhook(ctx: AppContext, rawBody: Buffer, signature: string | undefined): Promise<WebhookOutcome> {
  const stripe = stripeClient(ctx.config);
  let event: Stripe.Event;
  try {
    event = stripe.webhooks.constructEvent(rawBody, signature ?? '', ctx.config.stripe!.webhookSecret);
  } catch {
    throw new SitelineError('bad_input', 'The webhook signature does not verify (wrong secret, altered body, or an old timestamp).');
  }
  if (event.type === 'checkout.session.completed') return checkoutCompleted(ctx, event, event.data.object);
  if (event.type === 'charge.refunded') return refunded(ctx, event, event.data.object);
  if (event.type === 'charge.dispute.created' || event.type === 'charge.dispute.funds_withdrawn') return disputed(ctx, event, event.data.object);
  return { kind: 'ignored', reason: `event type ${event.type} is not acted on` };
}

async function checkoutCompleted(ctx: AppContext, event: Stripe.Event, session: Stripe.Checkout.Session): Promise<WebhookOutcome> {
  if (session.payment_status !== 'paid') return { kind: 'ignored', reason: `payment status ${session.payment_status}` };
  const accountId = session.metadata?.siteline_account;
  const credits = Number(session.metadata?.siteline_credits);
  if (!accountId || !Number.isSafeInteger(credits) || credits < 1) return { kind: 'ignored', reason: 'no siteline account or credits in the session metadata' };
  const known = await ctx.db.query('SELECT 1 FROM accounts WHERE account_id = $1', [accountId]);
  if (known.length === 0) return { kind: 'ignored', reason: 'the account in the metadata does not exist' };
  const result = await addCredit(ctx, { accountId, kind: 'purchase', credits, reference: `stripe checkout ${session.id}`, eventId: `stripe:${event.id}` });
  // Remember which payment bought what, so a refund or dispute of it can take the credit back. Also on
  // a redelivery (credited: false), in case the first delivery stopped between the two statements.
  const paymentIntent = idOf(session.payment_intent);
  if (paymentIntent && Number.isSafeInteger(session.amount_total) && session.amount_total! > 0) {
    await recordPurchase(ctx, { paymentIntent, accountId, sessionId: session.id, credits, amountCents: session.amount_total! });
  }
  ctx.logger.info({ eventId: event.id, session: session.id, accountId, credits, credited: result.credited }, 'stripe checkout completed');
  return { kind: 'credited', accountId, credits, result };
}

async function recordPurchase(
  ctx: AppContext,
  p: { paymentIntent: string; accountId: string; sessionId: string | null; credits: number; amountCents: number },
): Promise<void> {
  await ctx.db.query(
    `INSERT INTO stripe_purchases (payment_intent, account_id, session_id, credits, amount_cents, created_at) VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (payment_intent) DO NOTHING`,
    [p.paymentIntent, p.accountId, p.sessionId, p.credits, p.amountCents, ctx.clock.now().toISOString()],
  );
}

/** A purchase the charge's own metadata names (set through payment_intent_data), recorded if it was not. */
async function purchaseFromCharge(
  ctx: AppContext,
  charge: { payment_intent: string | { id: string } | null; metadata?: Stripe.Metadata | null; amount: number },
): Promise<string | undefined> {
  const paymentIntent = idOf(charge.payment_intent);
  if (!paymentIntent) return undefined;
  const accountId = charge.metadata?.siteline_account;
  const credits = Number(charge.metadata?.siteline_credits);
  if (accountId && Number.isSafeInteger(credits) && credits > 0 && Number.isSafeInteger(charge.amount) && charge.amount > 0) {
    const known = await ctx.db.query('SELECT 1 FROM accounts WHERE account_id = $1', [accountId]);
    if (known.length) await recordPurchase(ctx, { paymentIntent, accountId, sessionId: null, credits, amountCents: charge.amount });
  }
  return paymentIntent;
}

async function refunded(ctx: AppContext, event: Stripe.Event, charge: Stripe.Charge): Promise<WebhookOutcome> {
  const paymentIntent = await purchaseFromCharge(ctx, charge);
  if (!paymentIntent) return { kind: 'ignored', reason: 'the charge names no payment' };
  // amount_refunded is cumulative: a second partial refund takes only the difference.
  const result = await clawBackCredit(ctx, {
    paymentIntent,
    takenCents: charge.amount_refunded,
    reference: `stripe refund of ${charge.id}`,
    eventId: `stripe:${event.id}`,
  });
  return clawOutcome(ctx, event, result);
}

async function disputed(ctx: AppContext, event: Stripe.Event, dispute: Stripe.Dispute): Promise<WebhookOutcome> {
  const charge = typeof dispute.charge === 'object' && dispute.charge ? dispute.charge : null;
  const paymentIntent = charge ? await purchaseFromCharge(ctx, charge) : idOf(dispute.payment_intent);
  if (!paymentIntent) return { kind: 'ignored', reason: 'the dispute names no payment' };
  const result = await clawBackCredit(ctx, {
    paymentIntent,
    takenCents: dispute.amount,
    reference: `stripe dispute ${dispute.id} (${dispute.reason})`,
    eventId: `stripe:${event.id}`,
  });
  return clawOutcome(ctx, event, result);
}

function clawOutcome(ctx: AppContext, event: Stripe.Event, result: ClawbackResult): WebhookOutcome {
  if (result.kind === 'unknown_payment') return { kind: 'ignored', reason: 'the payment did not buy siteline credit' };
  ctx.logger.info({ eventId: event.id, type: event.type, ...result }, 'stripe refund or dispute: credit taken back');
  return { kind: 'clawed_back', result };
}

const idOf = (v: string | { id: string } | null | undefined): string | undefined =>
  typeof v === 'string' ? v : v && typeof v.id === 'string' ? v.id : undefined;
