// `siteline credits grant <email> <credits> --reason "..." [--json]` and `siteline credits balance <email> [--json]`:
// the operator's way to give an account prepaid REST API credit (the only way when Stripe is not
// configured), on the running service (no restart), through its staff API as the logged-in staff
// account or the machine's operator, or on the database directly; never a database it would have to
// create (src/cli/staff-target.ts). Either way a grant is an append-only ledger entry naming the
// reason, recorded in the staff actions (who, when, why).
// Exit 0 ok; 2 bad usage, unknown account or bad amount; 1 refused (not staff) or unexpected; 4 login needed; 5 unreachable.
import { JSON_FLAG, URL_FLAG, UsageError, type Command, type CommandInput } from './command.ts';
import { EXIT } from './exit-codes.ts';
import { out } from './output.ts';
import { OPERATOR_FLAG, runStaff, STAFF_WHERE } from './staff-target.ts';

async function runGrant({ args: [email, amount], flags, io }: CommandInput): Promise<number> {
  const { MAX_CREDIT_PER_ENTRY } = await import('../billing/credit-ledger.ts');
  if (!/^\d+$/.test(amount!) || Number(amount) < 1 || Number(amount) > MAX_CREDIT_PER_ENTRY) {
    throw new UsageError(`credits must be a whole number from 1 to ${MAX_CREDIT_PER_ENTRY}`);
  }
  const reason = typeof flags.reason === 'string' ? flags.reason.trim() : '';
  if (!reason) throw new UsageError('say why with --reason "..." (it is kept on the ledger entry and in the staff actions)');
  const request = { email: email!, credits: Number(amount), reason };
  return runStaff(io, flags, 'credits grant', {
    service: (client) => client.requestJson<{ email: string; granted: number; balance: number }>('POST', '/staff/api/credit-grants', request),
    database: async (ctx, actor) => (await import('../staff/staff-actions.ts')).grantCredit(ctx, actor, request),
    print: (r) => {
      if (flags.json) out(io, JSON.stringify({ email: r.email, granted: r.granted, balance: r.balance }, null, 2));
      else out(io, `Granted ${r.granted} credits to ${r.email}; balance ${r.balance}.`);
      return EXIT.ok;
    },
  });
}

async function runBalance({ args: [email], flags, io }: CommandInput): Promise<number> {
  return runStaff(io, flags, 'credits balance', {
    service: (client) =>
      client.requestJson<{ email: string; balance: number; ledgerSum: number }>('GET', `/staff/api/credits?email=${encodeURIComponent(email!)}`),
    database: async (ctx) => (await import('../staff/staff-actions.ts')).balanceOf(ctx, email!),
    print: (b) => {
      if (flags.json) out(io, JSON.stringify(b, null, 2));
      else out(io, `${b.email}: ${b.balance} credits${b.balance === b.ledgerSum ? '' : ` (ledger sums to ${b.ledgerSum}: report this)`}`);
      return EXIT.ok;
    },
  });
}

const WHERE = STAFF_WHERE;

export const creditsCommand: Command = {
  name: 'credits',
  summary: 'Staff: grant prepaid REST API credit to an account, and see its balance',
  usage: 'credits <command> [flags]',
  description: WHERE,
  subcommands: [
    {
      name: 'grant',
      summary: 'Add prepaid API credit to an account (an append-only ledger entry: grant), recorded with the reason',
      usage: 'credits grant <email> <credits> --reason "..." [--url URL] [--json]',
      description: `The account must exist (the person signs up on the web first). The reason is kept on the ledger entry and in the staff actions (/staff/actions). ${WHERE}`,
      flags: [{ name: 'reason', value: 'TEXT', description: 'Why the credit is given (required)' }, URL_FLAG, OPERATOR_FLAG, JSON_FLAG],
      args: { min: 2, max: 2, name: 'the e-mail and the number of credits, e.g. siteline credits grant ann@example.com 100 --reason "pilot"' },
      examples: [
        'siteline credits grant ann@example.com 100 --reason "pilot customer"',
        'siteline credits grant ann@example.com 100 --reason "pilot" --url https://siteline.example.com',
      ],
      run: runGrant,
    },
    {
      name: 'balance',
      summary: "The account's credit balance (and a check against the ledger)",
      usage: 'credits balance <email> [--url URL] [--json]',
      description: WHERE,
      flags: [URL_FLAG, OPERATOR_FLAG, JSON_FLAG],
      args: { min: 1, max: 1, name: 'the e-mail of the account' },
      run: runBalance,
    },
  ],
};
