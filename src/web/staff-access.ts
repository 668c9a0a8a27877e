// Who may see a /staff page: a signed-in account that is staff (a verified account made staff by id,
// src/staff/staff-members.ts). Others are sent to sign in, or get 403 with how one becomes staff.
import type { HttpContext } from '../http/http-app.ts';
import type { AppContext } from '../context.ts';
import { htmlPage } from '../http/page.ts';
import type { StaffActor } from '../staff/staff-actions.ts';
import { staffMember } from '../staff/staff-members.ts';
import { html } from '../http/html.ts';
import { page, PAGE_HEADERS } from '../http/page.ts';
import { redirect } from '../http/forms.ts';
import { currentAccount } from './web-session.ts';

/** The staff member signed in (the actor of the page's actions), or the answer: a redirect to sign-in, or 403. */
export async function staffOnPage(ctx: AppContext, c: HttpContext, back: string): Promise<StaffActor | Response> {
  const account = await currentAccount(ctx, c);
  if (!account) return redirect(c, `/signin?next=${back}`); // back: a fixed path of ours
  const member = await staffMember(ctx, account.accountId);
  if (!member) {
    const body = html`<p class="error" id="staff-only">This page is for the people running siteline.</p>
<p>Staff are accounts with a verified e-mail address that were made staff, by another staff member or by the operator of the machine the service runs on (<code>siteline staff add &lt;email&gt;</code> there, while the service runs; no restart).</p>`;
    return htmlPage(c, 403, page('Staff only', body, { signedInAs: account.email }), PAGE_HEADERS);
  }
  return { who: member.email, accountId: member.accountId, via: 'web' };
}
