// `siteline staff revoke-key <key id> --reason "..."` (any account's API key, for abuse) and
// `siteline staff actions` (the record of staff actions: who, when, what, why). Through the running
// service's staff API as the logged-in staff account, or on the local database (src/cli/staff-target.ts).
// Exit 0 ok; 2 bad usage or unknown key; 1 refused (not staff); 4 login needed; 5 unreachable.
import { JSON_FLAG, URL_FLAG, UsageError, type Command, type CommandInput } from './command.ts';
import { EXIT } from './exit-codes.ts';
import { out } from './output.ts';
import { runStaff } from './staff-target.ts';
import type { StaffAction } from '../staff/staff-actions.ts';

async function runRevokeKey({ args: [keyId], flags, io }: CommandInput): Promise<number> {
  const reason = typeof flags.reason === 'string' ? flags.reason.trim() : '';
  if (!reason) throw new UsageError('say why with --reason "..." (kept in the staff actions)');
  return runStaff(io, flags, 'staff revoke-key', {
    service: (client) => client.requestJson<{ keyId: string; accountEmail: string; revokedAt: string }>('POST', `/staff/api/keys/${encodeURIComponent(keyId!)}/revoke`, { reason }),
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
      else for (const a of actions) out(io, `${a.createdAt.slice(0, 19).replace('T', ' ')}  ${a.actor} (${a.via})  ${a.action} ${a.subject}${Object.keys(a.details).length ? ` ${JSON.stringify(a.details)}` : ''}: ${a.reason}`);
      return EXIT.ok;
    },
  });
}

export const staffCommand: Command = {
  name: 'staff',
  summary: 'Staff: revoke a key for abuse, and the record of staff actions',
  usage: 'staff <command> [flags]',
  description:
    'While the service runs on the embedded database, or with --url, these go through the service as your staff account (`siteline login` first; SITELINE_STAFF_EMAILS); otherwise on the local database. Credit: `siteline credits`; feedback: `siteline feedback`.',
  subcommands: [
    {
      name: 'revoke-key',
      summary: "Revoke any account's REST API key (abuse), recorded with the reason",
      usage: 'staff revoke-key <key id> --reason "..." [--url URL] [--json]',
      flags: [{ name: 'reason', value: 'TEXT', description: 'Why the key is revoked (required)' }, URL_FLAG, JSON_FLAG],
      args: { min: 1, max: 1, name: 'the key id (as the account page and `siteline keys list` show it)' },
      examples: ['siteline staff revoke-key key_3f9a… --reason "scraping beyond the terms"'],
      run: runRevokeKey,
    },
    {
      name: 'actions',
      summary: 'Every staff action, newest first: when, who, how, what, why',
      usage: 'staff actions [--limit N] [--url URL] [--json]',
      flags: [{ name: 'limit', value: 'N', description: 'At most N actions (1 to 1000, default 50)' }, URL_FLAG, JSON_FLAG],
      run: runActions,
    },
  ],
};
