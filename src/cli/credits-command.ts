// `siteline credits grant <email> <credits> --reason "..." [--json]` and `siteline credits balance <email> [--json]`:
// the operator's way to give an account prepaid REST API credit (the only way when Stripe is not
// configured). Runs in-process on the local database (SITELINE_DATA_DIR or DATABASE_URL), like
// `siteline data import`; a grant is an append-only ledger entry naming the reason.
// Exit 0 ok; 2 bad usage, unknown account or bad amount; 1 unexpected.
import { JSON_FLAG, UsageError, type Command, type CommandInput } from './command.ts';
import { EXIT } from './exit-codes.ts';
import { err, out, type Io } from './output.ts';
import type { AppContext } from '../context.ts';

/** The database side, loaded only when the command runs (help stays instant and opens nothing). */
async function modules() {
  const [{ loadConfig }, { createLogger }, { openContext }, { SitelineError }, { normaliseEmail }, ledger] = await Promise.all([
    import('../config.ts'),
    import('../logger.ts'),
    import('../service.ts'),
    import('../core/errors.ts'),
    import('../auth/accounts.ts'),
    import('../billing/credit-ledger.ts'),
  ]);
  return { loadConfig, createLogger, openContext, SitelineError, normaliseEmail, ...ledger };
}

async function withContext<T>(io: Io, fn: (ctx: AppContext) => Promise<T>): Promise<T> {
  const { loadConfig, createLogger, openContext } = await modules();
  const ctx = await openContext(loadConfig(io.env), { logger: createLogger('warn', io.stderr) });
  try {
    return await fn(ctx);
  } finally {
    await ctx.db.close();
  }
}

async function accountOf(ctx: AppContext, email: string): Promise<string | undefined> {
  const { normaliseEmail } = await modules();
  const rows = await ctx.db.query<{ account_id: string }>('SELECT account_id FROM accounts WHERE email = $1', [normaliseEmail(email)]);
  return rows[0]?.account_id;
}

async function runGrant({ args: [email, amount], flags, io }: CommandInput): Promise<number> {
  const { MAX_CREDIT_PER_ENTRY, normaliseEmail, addCredit, SitelineError } = await modules();
  if (!/^\d+$/.test(amount!) || Number(amount) < 1 || Number(amount) > MAX_CREDIT_PER_ENTRY) {
    throw new UsageError(`credits must be a whole number from 1 to ${MAX_CREDIT_PER_ENTRY}`);
  }
  const reason = typeof flags.reason === 'string' ? flags.reason.trim() : '';
  if (!reason) throw new UsageError('say why with --reason "..." (it is kept on the ledger entry)');
  return withContext(io, async (ctx) => {
    const accountId = await accountOf(ctx, email!);
    if (!accountId) {
      err(io, `${io.errColour.red('error:')} siteline credits: no account with the e-mail ${normaliseEmail(email!)} (the person signs up on the web first)`);
      return EXIT.usage;
    }
    try {
      const r = await addCredit(ctx, { accountId, kind: 'grant', credits: Number(amount), reference: `operator grant: ${reason.slice(0, 200)}` });
      if (flags.json) out(io, JSON.stringify({ email: normaliseEmail(email!), granted: Number(amount), balance: r.balance }, null, 2));
      else out(io, `Granted ${Number(amount)} credits to ${normaliseEmail(email!)}; balance ${r.balance}.`);
      return EXIT.ok;
    } catch (e) {
      if (e instanceof SitelineError && e.code === 'bad_input') throw new UsageError(e.message);
      throw e;
    }
  });
}

async function runBalance({ args: [email], flags, io }: CommandInput): Promise<number> {
  const { normaliseEmail, creditBalance, ledgerSum } = await modules();
  return withContext(io, async (ctx) => {
    const accountId = await accountOf(ctx, email!);
    if (!accountId) {
      err(io, `${io.errColour.red('error:')} siteline credits: no account with the e-mail ${normaliseEmail(email!)}`);
      return EXIT.usage;
    }
    const [b, sum] = [await creditBalance(ctx.db, accountId), await ledgerSum(ctx.db, accountId)];
    if (flags.json) out(io, JSON.stringify({ email: normaliseEmail(email!), balance: b, ledgerSum: sum }, null, 2));
    else out(io, `${normaliseEmail(email!)}: ${b} credits${b === sum ? '' : ` (ledger sums to ${sum}: report this)`}`);
    return EXIT.ok;
  });
}

export const creditsCommand: Command = {
  name: 'credits',
  summary: 'Operator: grant prepaid REST API credit to an account, and see its balance',
  usage: 'credits <command> [flags]',
  description: 'Works on the local database (SITELINE_DATA_DIR or DATABASE_URL), not through the service.',
  subcommands: [
    {
      name: 'grant',
      summary: 'Add prepaid API credit to an account (an append-only ledger entry: grant)',
      usage: 'credits grant <email> <credits> --reason "..." [--json]',
      description: 'The account must exist (the person signs up on the web first). The reason is kept on the ledger entry.',
      flags: [{ name: 'reason', value: 'TEXT', description: 'Why the credit is given (required)' }, JSON_FLAG],
      args: { min: 2, max: 2, name: 'the e-mail and the number of credits, e.g. siteline credits grant ann@example.com 100 --reason "pilot"' },
      examples: ['siteline credits grant ann@example.com 100 --reason "pilot customer"'],
      run: runGrant,
    },
    {
      name: 'balance',
      summary: "The account's credit balance (and a check against the ledger)",
      usage: 'credits balance <email> [--json]',
      flags: [JSON_FLAG],
      args: { min: 1, max: 1, name: 'the e-mail of the account' },
      run: runBalance,
    },
  ],
};
