// `siteline usage [--json]`: what the logged-in account has used (`siteline login` first), through the
// service's GET /api/v1/usage with the user's token (free, never charged): the project report export
// meter (records.exports: used, allowance, what is left this month and when it renews) and the
// prepaid REST API credit (balance, charges today). The same figures as the web account pages.
// Exit 0 ok; 4 not logged in; 5 unreachable; 1 unexpected.
import { JSON_FLAG, URL_FLAG, type Command } from './command.ts';
import { EXIT } from './exit-codes.ts';
import { out } from './output.ts';
import { ServiceClient } from './service-client.ts';

interface UsageAnswer {
  balance: number;
  perDay: { day: string; charges: number; credits: number }[];
  purchasing: { enabled: boolean; how: string };
  reportExports: { meter: string; period: string; used: number; allowance: number; remaining: number; resetsAt: string };
}

export const usageCommand: Command = {
  name: 'usage',
  summary: "Your account's usage: report exports this month (records.exports) and REST API credit",
  usage: 'usage [--url URL] [--json]',
  description: "Uses your login (`siteline login` first) and the service's /api/v1/usage route (free). --json prints the service's answer as is.",
  flags: [JSON_FLAG, URL_FLAG],
  examples: ['siteline usage', 'siteline usage --json'],
  async run({ flags, io }) {
    const client = ServiceClient.forUser({ url: flags.url as string | undefined, env: io.env });
    try {
      const u = await client.requestJson<UsageAnswer>('GET', '/api/v1/usage');
      if (flags.json) {
        out(io, JSON.stringify(u, null, 2));
        return EXIT.ok;
      }
      const e = u.reportExports;
      const today = new Date().toISOString().slice(0, 10);
      const charges = u.perDay.find((d) => d.day === today)?.charges ?? 0;
      out(io, `Report exports (${e.meter}), ${e.period}: ${e.used} of ${e.allowance} used, ${e.remaining} left; renews ${e.resetsAt.slice(0, 10)}.`);
      if (e.remaining === 0)
        out(io, '  The allowance is used up: produceProjectReport with confirm=true is refused until it renews (preview=true stays free).');
      out(io, `REST API credit: ${u.balance} credits; ${charges} charged today (UTC). ${u.purchasing.how}`);
      return EXIT.ok;
    } finally {
      await client.close();
    }
  },
};
