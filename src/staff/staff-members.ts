// Who is staff (issue 45): staff rights belong to accounts, by id, and only to accounts whose address
// is verified. They are given and taken with `siteline staff add|remove <email>` (or the staff API and
// /staff), on the running service, each recorded in staff_actions; every staff check reads the
// database, so a change holds at once, without a restart. SITELINE_STAFF_EMAILS at most seeds them: a
// listed address becomes staff the first time a staff check meets a verified account holding it, and
// never again (staff_seeded_emails, migration 161), so a removal sticks and an address a staff member
// moved away from gives a newcomer nothing. An unverified sign-up with a listed address is not staff.
// No HTTP here.
import type { AppContext } from '../context.ts';
import { SitelineError } from '../core/errors.ts';
import { accountByEmail, record, REASON_MAX, type StaffActor } from './staff-actions.ts';

/** The actor seeding records carry. */
const CONFIG_SEED_ACTOR: StaffActor = { who: 'SITELINE_STAFF_EMAILS', via: 'config' };

export interface StaffMember {
  accountId: string;
  email: string;
}

interface MemberRow {
  account_id: string;
  email: string;
  email_verified_at: Date | string | null;
  member: string | null;
}

/**
 * The staff member behind an account, or undefined when the account is not staff (not a member, or its
 * address not verified). A verified account holding an address of SITELINE_STAFF_EMAILS that was never
 * seeded is made staff here, recorded as the configuration's doing.
 */
export async function staffMember(ctx: AppContext, accountId: string): Promise<StaffMember | undefined> {
  const [row] = await ctx.db.query<MemberRow>(
    `SELECT a.account_id, a.email, a.email_verified_at, s.account_id AS member FROM accounts a LEFT JOIN staff_members s USING (account_id) WHERE a.account_id = $1`,
    [accountId],
  );
  if (!row?.email_verified_at) return undefined;
  if (row.member) return { accountId: row.account_id, email: row.email };
  if (!ctx.config.staffEmails.includes(row.email.toLowerCase())) return undefined;
  return (await seed(ctx, row.account_id, row.email)) ? { accountId: row.account_id, email: row.email } : undefined;
}

/**
 * Whether this installation has staff, or will as soon as a listed address is verified
 * (SITELINE_STAFF_EMAILS): false on a fresh install, where the pages name `siteline staff add`.
 */
export async function hasAnyStaff(ctx: AppContext): Promise<boolean> {
  if (ctx.config.staffEmails.length) return true;
  const rows = await ctx.db.query('SELECT 1 FROM staff_members LIMIT 1');
  return rows.length > 0;
}

/** Seeds one listed, verified address: once per address, ever. True when it made the account staff now. */
async function seed(ctx: AppContext, accountId: string, email: string): Promise<boolean> {
  const now = ctx.clock.now().toISOString();
  const seeded = await ctx.db.transaction(async (tx) => {
    const first = await tx.query(
      'INSERT INTO staff_seeded_emails (email, account_id, seeded_at) VALUES ($1, $2, $3) ON CONFLICT (email) DO NOTHING RETURNING 1',
      [email.toLowerCase(), accountId, now],
    );
    if (!first.length) return false;
    await tx.query('INSERT INTO staff_members (account_id, added_at, added_by) VALUES ($1, $2, $3) ON CONFLICT (account_id) DO NOTHING', [
      accountId,
      now,
      CONFIG_SEED_ACTOR.who,
    ]);
    await record(
      ctx,
      tx,
      CONFIG_SEED_ACTOR,
      'staff_add',
      email,
      { accountId },
      'listed in SITELINE_STAFF_EMAILS; seeded once, when a staff check met the account with this address verified',
    );
    return true;
  });
  if (seeded) ctx.logger.info({ accountId }, 'staff seeded from SITELINE_STAFF_EMAILS');
  return seeded;
}

/** Seeds every listed address whose account is verified (for the lists; staffMember seeds one at a time otherwise). */
async function seedAll(ctx: AppContext): Promise<void> {
  if (!ctx.config.staffEmails.length) return;
  const rows = await ctx.db.query<{ account_id: string; email: string }>(
    `SELECT a.account_id, a.email FROM accounts a
      WHERE a.email = ANY($1::text[]) AND a.email_verified_at IS NOT NULL
        AND NOT EXISTS (SELECT 1 FROM staff_seeded_emails e WHERE e.email = a.email)
        AND NOT EXISTS (SELECT 1 FROM staff_members s WHERE s.account_id = a.account_id)`,
    [ctx.config.staffEmails],
  );
  for (const r of rows) await seed(ctx, r.account_id, r.email);
}

const reasonOr = (reason: string | undefined, fallback: string): string => {
  const r = (reason ?? '').trim() || fallback;
  if (r.length > REASON_MAX) throw new SitelineError('bad_input', `The reason is ${r.length} characters; at most ${REASON_MAX}.`);
  return r;
};

export interface StaffChange {
  email: string;
  accountId: string;
  /** False when nothing changed (already staff / not staff); nothing is recorded then. */
  changed: boolean;
  actionId?: string;
}

/** Makes a verified account staff, recorded. An unverified account is refused: its address is not proven. */
export async function addStaff(ctx: AppContext, actor: StaffActor, req: { email: string; reason?: string | undefined }): Promise<StaffChange> {
  const reason = reasonOr(req.reason, 'made staff');
  const email = req.email.trim().toLowerCase();
  const accountId = await accountByEmail(ctx.db, email);
  const now = ctx.clock.now().toISOString();
  return ctx.db.transaction(async (tx) => {
    const [acc] = await tx.query<{ email_verified_at: Date | null }>('SELECT email_verified_at FROM accounts WHERE account_id = $1 FOR UPDATE', [accountId]);
    if (!acc?.email_verified_at) {
      throw new SitelineError(
        'conflict',
        `The account ${email} has not verified its e-mail address yet; staff rights go to verified accounts only (it opens the link mailed at sign-up first). Nothing was changed.`,
      );
    }
    // The address counts as seeded: if it is listed, it never makes anyone staff again (say, after this person moves away from it).
    await tx.query('INSERT INTO staff_seeded_emails (email, account_id, seeded_at) VALUES ($1, $2, $3) ON CONFLICT (email) DO NOTHING', [
      email,
      accountId,
      now,
    ]);
    const added = await tx.query(
      'INSERT INTO staff_members (account_id, added_at, added_by) VALUES ($1, $2, $3) ON CONFLICT (account_id) DO NOTHING RETURNING 1',
      [accountId, now, actor.who],
    );
    if (!added.length) return { email, accountId, changed: false };
    const actionId = await record(ctx, tx, actor, 'staff_add', email, { accountId }, reason);
    return { email, accountId, changed: true, actionId };
  });
}

/** Takes staff rights from an account, recorded (a listed address is not seeded again). */
export async function removeStaff(ctx: AppContext, actor: StaffActor, req: { email: string; reason?: string | undefined }): Promise<StaffChange> {
  const reason = reasonOr(req.reason, 'staff rights removed');
  const email = req.email.trim().toLowerCase();
  const accountId = await accountByEmail(ctx.db, email);
  return ctx.db.transaction(async (tx) => {
    // Seeding now would be undone at once; marking the address seeded keeps a listed one from coming back.
    await tx.query('INSERT INTO staff_seeded_emails (email, account_id, seeded_at) VALUES ($1, $2, $3) ON CONFLICT (email) DO NOTHING', [
      email,
      accountId,
      ctx.clock.now().toISOString(),
    ]);
    const removed = await tx.query('DELETE FROM staff_members WHERE account_id = $1 RETURNING 1', [accountId]);
    if (!removed.length) return { email, accountId, changed: false };
    const actionId = await record(ctx, tx, actor, 'staff_remove', email, { accountId }, reason);
    return { email, accountId, changed: true, actionId };
  });
}

export interface StaffListing extends StaffMember {
  verified: boolean;
  addedAt: string;
  addedBy: string;
}

/** Every staff member, oldest first (listed, verified addresses are seeded first). */
export async function listStaff(ctx: AppContext): Promise<StaffListing[]> {
  await seedAll(ctx);
  const rows = await ctx.db.query<{ account_id: string; email: string; email_verified_at: Date | null; added_at: Date | string; added_by: string }>(
    'SELECT s.account_id, a.email, a.email_verified_at, s.added_at, s.added_by FROM staff_members s JOIN accounts a USING (account_id) ORDER BY s.added_at, s.account_id',
  );
  return rows.map((r) => ({
    accountId: r.account_id,
    email: r.email,
    verified: r.email_verified_at != null,
    addedAt: new Date(r.added_at).toISOString(),
    addedBy: r.added_by,
  }));
}
