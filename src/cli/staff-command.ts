// `siteline staff add|remove <email>` (staff rights, by account: issue 45), `staff list`,
// `siteline staff revoke-key <key id> --reason "..."` (any account's API key, for abuse) and
// `siteline staff actions` (the record of staff actions: who, when, what, why). Through the running
// service's staff API as the logged-in staff account or the machine's operator, or on the local
// database (src/cli/staff-target.ts); never a database it would have to create.
// Exit 0 ok; 2 bad usage, unknown account or key, nothing to act on; 1 refused (not staff); 4 login needed; 5 unreachable.
import { JSON_FLAG, URL_FLAG, UsageError, type Command, type CommandInput } from './command.ts';
import { EXIT } from './exit-codes.ts';
import { out } from './output.ts';
import { OPERATOR_FLAG, runStaff, STAFF_WHERE } from './staff-target.ts';
import type { AllowanceResult, StaffAction } from '../staff/staff-actions.ts';
import type { StaffChange, StaffListing } from '../staff/staff-members.ts';

const reasonOf = (flags: CommandInput['flags']) => (typeof flags.reason === 'string' ? flags.reason.trim() : '') || undefined;

async function runAdd({ args: [email], flags, io }: CommandInput): Promise<number> {
  const request = { email: email!, reason: reasonOf(flags) };
  return runStaff(io, flags, 'staff add', {
    service: (client) => client.requestJson<StaffChange>('POST', '/staff/api/staff', request),
    database: async (ctx, actor) => (await import('../staff/staff-members.ts')).addStaff(ctx, actor, request),
    print: (r) => {
      if (flags.json) out(io, JSON.stringify(r, null, 2));
      else
        out(
          io,
          r.changed
            ? `${r.email} is staff now (no restart needed: the running service checks at every request).`
            : `${r.email} was already staff; nothing changed.`,
        );
      return EXIT.ok;
    },
  });
}

async function runRemove({ args: [email], flags, io }: CommandInput): Promise<number> {
  const request = { email: email!, reason: reasonOf(flags) };
  return runStaff(io, flags, 'staff remove', {
    service: (client) => client.requestJson<StaffChange>('POST', '/staff/api/staff/remove', request),
    database: async (ctx, actor) => (await import('../staff/staff-members.ts')).removeStaff(ctx, actor, request),
    print: (r) => {
      if (flags.json) out(io, JSON.stringify(r, null, 2));
      else out(io, r.changed ? `${r.email} is no longer staff.` : `${r.email} was not staff; nothing changed.`);
      return EXIT.ok;
    },
  });
}

async function runAllowance({ args: [email, amount], flags, io }: CommandInput): Promise<number> {
  const { MAX_EXPORTS_PER_MONTH } = await import('../reports/export-store.ts');
  if (!/^\d+$/.test(amount!) || Number(amount) > MAX_EXPORTS_PER_MONTH)
    throw new UsageError(`the allowance must be a whole number of exports a month from 0 to ${MAX_EXPORTS_PER_MONTH}`);
  const reason = typeof flags.reason === 'string' ? flags.reason.trim() : '';
  if (!reason) throw new UsageError('say why with --reason "..." (kept in the staff actions)');
  const request = { email: email!, allowance: Number(amount), reason };
  return runStaff(io, flags, 'staff export-allowance', {
    service: (client) => client.requestJson<AllowanceResult>('POST', '/staff/api/export-allowances', request),
    database: async (ctx, actor) => (await import('../staff/staff-actions.ts')).setExportAllowance(ctx, actor, request),
    print: (r) => {
      if (flags.json) out(io, JSON.stringify({ email: r.email, from: r.from, allowance: r.allowance }, null, 2));
      else out(io, `${r.email} may export ${r.allowance} project reports a month (was ${r.from}).`);
      return EXIT.ok;
    },
  });
}

async function runList({ flags, io }: CommandInput): Promise<number> {
  return runStaff(io, flags, 'staff list', {
    service: async (client) => (await client.requestJson<{ staff: StaffListing[] }>('GET', '/staff/api/staff')).staff,
    database: async (ctx) => (await import('../staff/staff-members.ts')).listStaff(ctx),
    print: (staff) => {
      if (flags.json) out(io, JSON.stringify(staff, null, 2));
      else if (staff.length === 0) out(io, 'No staff yet. On the machine the service runs on: siteline staff add <email>');
      else
        for (const m of staff)
          out(io, `${m.email}  since ${m.addedAt.slice(0, 16).replace('T', ' ')} UTC, by ${m.addedBy}${m.verified ? '' : ' (address not verified)'}`);
      return EXIT.ok;
    },
  });
}

async function runRevokeKey({ args: [keyId], flags, io }: CommandInput): Promise<number> {
  const reason = typeof flags.reason === 'string' ? flags.reason.trim() : '';
  if (!reason) throw new UsageError('say why with --reason "..." (kept in the staff actions)');
  return runStaff(io, flags, 'staff revoke-key', {
    service: (client) =>
      client.requestJson<{ keyId: string; accountEmail: string; revokedAt: string }>('POST', `/staff/api/keys/${encodeURIComponent(keyId!)}/revoke`, {
        reason,
      }),
    database: async (ctx, actor) => (await import('../staff/staff-actions.ts')).revokeKeyForAbuse(ctx, actor, { keyId: keyId!, reason }),
    print: (r) => {
      if (flags.json) out(io, JSON.stringify({ keyId: r.keyId, account: r.accountEmail, revokedAt: r.revokedAt }, null, 2));
      else out(io, `Revoked key ${r.keyId} of ${r.accountEmail}.`);
      return EXIT.ok;
    },
  });
}

async function runActions({ flags, io }: CommandInput): Promise<number> {
  const limit = flags.limit === undefined ? 50 : Number(flags.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new UsageError('--limit needs a whole number from 1 to 1000');
  return runStaff(io, flags, 'staff actions', {
    service: async (client) => (await client.requestJson<{ actions: StaffAction[] }>('GET', `/staff/api/actions?limit=${limit}`)).actions,
    database: async (ctx) => (await import('../staff/staff-actions.ts')).listStaffActions(ctx, limit),
    print: (actions) => {
      if (flags.json) out(io, JSON.stringify(actions, null, 2));
      else if (actions.length === 0) out(io, 'No staff actions yet.');
      else
        for (const a of actions)
          out(
            io,
            `${a.createdAt.slice(0, 19).replace('T', ' ')}  ${a.actor} (${a.via})  ${a.action} ${a.subject}${Object.keys(a.details).length ? ` ${JSON.stringify(a.details)}` : ''}: ${a.reason}`,
          );
      return EXIT.ok;
    },
  });
}

export const staffCommand: Command = {
  name: 'staff',
  summary: 'Staff: who is staff, revoke a key for abuse, and the record of staff actions',
  usage: 'staff <command> [flags]',
  description: `${STAFF_WHERE} Credit: \`siteline credits\`; feedback: \`siteline feedback\`.`,
  subcommands: [
    {
      name: 'add',
      summary: 'Make an account staff (its e-mail address must be verified), recorded',
      usage: 'staff add <email> [--reason "..."] [--url URL] [--operator] [--json]',
      description:
        "Staff rights belong to the account, not the address: they stay when it changes its address. On a new installation, run this on the machine the service runs on (no login needed: it acts as the machine's operator), after the person signed up and opened the verification link; the service needs no restart.",
      flags: [{ name: 'reason', value: 'TEXT', description: 'Why (kept in the staff actions; default "made staff")' }, URL_FLAG, OPERATOR_FLAG, JSON_FLAG],
      args: { min: 1, max: 1, name: 'the e-mail of the account' },
      examples: ['siteline staff add ann@example.com', 'siteline staff add ann@example.com --reason "runs support" --url https://siteline.example.com'],
      run: runAdd,
    },
    {
      name: 'remove',
      summary: "Take an account's staff rights, recorded (an address in SITELINE_STAFF_EMAILS does not bring them back)",
      usage: 'staff remove <email> [--reason "..."] [--url URL] [--operator] [--json]',
      flags: [{ name: 'reason', value: 'TEXT', description: 'Why (kept in the staff actions)' }, URL_FLAG, OPERATOR_FLAG, JSON_FLAG],
      args: { min: 1, max: 1, name: 'the e-mail of the account' },
      run: runRemove,
    },
    {
      name: 'export-allowance',
      summary: "Raise or lower an account's monthly allowance of project report exports (default 25), recorded",
      usage: 'staff export-allowance <email> <exports a month> --reason "..." [--url URL] [--operator] [--json]',
      description:
        'The records.exports meter: confirmed produceProjectReport exports an account may save per calendar month (UTC). Lowering it below what was used this month leaves nothing to spend until it renews. The account page, `siteline usage` and getProjectContext show it.',
      flags: [{ name: 'reason', value: 'TEXT', description: 'Why the allowance changes (required)' }, URL_FLAG, OPERATOR_FLAG, JSON_FLAG],
      args: { min: 2, max: 2, name: 'the e-mail and the exports a month, e.g. siteline staff export-allowance ann@example.com 60 --reason "pilot"' },
      examples: ['siteline staff export-allowance ann@example.com 60 --reason "pilot customer"'],
      run: runAllowance,
    },
    {
      name: 'list',
      summary: 'Every staff account: address, since when, made staff by whom',
      usage: 'staff list [--url URL] [--operator] [--json]',
      flags: [URL_FLAG, OPERATOR_FLAG, JSON_FLAG],
      run: runList,
    },
    {
      name: 'revoke-key',
      summary: "Revoke any account's REST API key (abuse), recorded with the reason",
      usage: 'staff revoke-key <key id> --reason "..." [--url URL] [--json]',
      flags: [{ name: 'reason', value: 'TEXT', description: 'Why the key is revoked (required)' }, URL_FLAG, OPERATOR_FLAG, JSON_FLAG],
      args: { min: 1, max: 1, name: 'the key id (as the account page and `siteline keys list` show it)' },
      examples: ['siteline staff revoke-key key_3f9a… --reason "scraping beyond the terms"'],
      run: runRevokeKey,
    },
    {
      name: 'actions',
      summary: 'Every staff action, newest first: when, who, how, what, why',
      usage: 'staff actions [--limit N] [--url URL] [--json]',
      flags: [{ name: 'limit', value: 'N', description: 'At most N actions (1 to 1000, default 50)' }, URL_FLAG, OPERATOR_FLAG, JSON_FLAG],
      run: runActions,
    },
  ],
};
