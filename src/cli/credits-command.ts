// `siteline credits grant <email> <credits> --reason "..."` and `siteline credits balance <email>`:
// the operator's way to give an account prepaid REST API credit (the only way when Stripe is not
// configured). Runs in-process on the local database (PGlite data dir or DATABASE_URL), like
// `siteline data import`; a grant is an append-only ledger entry naming the reason.
// Exit 0 ok; 2 bad usage, unknown account or bad amount; 1 unexpected.
import { loadConfig } from '../config.ts';
import { createLogger } from '../logger.ts';
import { openContext } from '../service.ts';
import { SitelineError } from '../core/errors.ts';
import { normaliseEmail } from '../auth/accounts.ts';
import { addCredit, creditBalance, ledgerSum, MAX_CREDIT_PER_ENTRY } from '../billing/credit-ledger.ts';
import type { AppContext } from '../context.ts';

const USAGE = `Usage:
  siteline credits grant <email> <credits> --reason "..."   add prepaid API credit to an account (ledger entry: grant)
  siteline credits balance <email>                          the account's balance (and a ledger check)
`;

function fail(message: string): number {
  process.stderr.write(`siteline credits: ${message}\n\n${USAGE}`);
  return 2;
}

async function withContext<T>(fn: (ctx: AppContext) => Promise<T>): Promise<T> {
  const ctx = await openContext(loadConfig(), { logger: createLogger('warn', process.stderr) });
  try {
    return await fn(ctx);
  } finally {
    await ctx.db.close();
  }
}

async function accountOf(ctx: AppContext, email: string): Promise<string | undefined> {
  const rows = await ctx.db.query<{ account_id: string }>('SELECT account_id FROM accounts WHERE email = $1', [normaliseEmail(email)]);
  return rows[0]?.account_id;
}

async function grant(argv: string[]): Promise<number> {
  const positional: string[] = [];
  let reason: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--reason') {
      reason = argv[++i];
      if (reason === undefined) return fail('--reason needs a text');
    } else if (a.startsWith('--reason=')) reason = a.slice('--reason='.length);
    else if (a.startsWith('--')) return fail(`unknown option ${a}`);
    else positional.push(a);
  }
  if (positional.length !== 2) return fail('grant takes an e-mail and a number of credits');
  const [email, amount] = positional as [string, string];
  if (!/^\d+$/.test(amount) || Number(amount) < 1 || Number(amount) > MAX_CREDIT_PER_ENTRY) {
    return fail(`credits must be a whole number from 1 to ${MAX_CREDIT_PER_ENTRY}`);
  }
  if (!reason?.trim()) return fail('say why with --reason "..." (it is kept on the ledger entry)');
  return withContext(async (ctx) => {
    const accountId = await accountOf(ctx, email);
    if (!accountId) {
      process.stderr.write(`siteline credits: no account with the e-mail ${normaliseEmail(email)} (the person signs up on the web first)\n`);
      return 2;
    }
    try {
      const r = await addCredit(ctx, { accountId, kind: 'grant', credits: Number(amount), reference: `operator grant: ${reason!.trim().slice(0, 200)}` });
      process.stdout.write(`Granted ${Number(amount)} credits to ${normaliseEmail(email)}; balance ${r.balance}.\n`);
      return 0;
    } catch (err) {
      if (err instanceof SitelineError && err.code === 'bad_input') return fail(err.message);
      throw err;
    }
  });
}

async function balance(argv: string[]): Promise<number> {
  if (argv.length !== 1 || argv[0]!.startsWith('--')) return fail('balance takes one e-mail');
  return withContext(async (ctx) => {
    const accountId = await accountOf(ctx, argv[0]!);
    if (!accountId) {
      process.stderr.write(`siteline credits: no account with the e-mail ${normaliseEmail(argv[0]!)}\n`);
      return 2;
    }
    const [b, sum] = [await creditBalance(ctx.db, accountId), await ledgerSum(ctx.db, accountId)];
    process.stdout.write(`${normaliseEmail(argv[0]!)}: ${b} credits${b === sum ? '' : ` (ledger sums to ${sum}: report this)`}\n`);
    return 0;
  });
}

export async function run(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === 'grant') return grant(rest);
  if (sub === 'balance') return balance(rest);
  if (!sub || sub === '--help' || sub === 'help') {
    process.stdout.write(USAGE);
    return sub ? 0 : 2;
  }
  return fail(`unknown subcommand "${sub}"`);
}
