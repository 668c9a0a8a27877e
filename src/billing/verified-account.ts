// Billing acts only for an account whose e-mail address is verified (issue 45: a key made, or credit
// bought, by someone who signed up with another person's address would keep spending that person's
// credit once they took it over). Billing sits below auth (auth's bearer check reads billing's API keys),
// so it reads the one column it needs of the accounts table itself, as it reads accounts elsewhere.
import type { AppContext } from '../context.ts';

/** The sentence every action refused for an unverified address shows (auth's pages add the resend button). */
export const UNVERIFIED_MESSAGE =
  'Confirm your e-mail address first: open the link we e-mailed you when you signed up (or ask for a new one below), then come back here.';

/** True once the account followed a verification link (accounts.email_verified_at, set by src/auth/email-verification.ts). */
export async function accountVerified(ctx: Pick<AppContext, 'db'>, accountId: string): Promise<boolean> {
  const rows = await ctx.db.query<{ email_verified_at: Date | null }>('SELECT email_verified_at FROM accounts WHERE account_id = $1', [accountId]);
  return rows[0]?.email_verified_at != null;
}
