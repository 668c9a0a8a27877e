// Times on the account pages in people's words (issue 49, item 5), never raw ISO: "today at 14:05 UTC",
// "yesterday at 09:12 UTC", "3 Dec 2026 at 14:05 UTC", and for a deadline "in 9 minutes, at 14:05 UTC".
// The server does not know the viewer's time zone (the pages run without JavaScript), so every time
// says UTC; the relative part ("in 9 minutes", "5 minutes ago") reads the same in every zone.
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const DAY_MS = 86_400_000;

const clock = (d: Date) => `${String(d.getUTCHours()).padStart(2, '0')}:${String(d.getUTCMinutes()).padStart(2, '0')} UTC`;
const dayNumber = (d: Date) => Math.floor(d.getTime() / DAY_MS);

/** "6 Dec 2026": a date alone, in words. */
export function dateWords(at: string | Date): string {
  const d = new Date(at);
  return `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}`;
}

/** The day part: "today", "yesterday", "tomorrow", else the date. */
function dayWords(d: Date, now: Date): string {
  const diff = dayNumber(d) - dayNumber(now);
  if (diff === 0) return 'today';
  if (diff === -1) return 'yesterday';
  if (diff === 1) return 'tomorrow';
  return dateWords(d);
}

const plural = (n: number, unit: string) => `${n} ${unit}${n === 1 ? '' : 's'}`;

/** "9 minutes", "2 hours", "3 days": a span in the largest whole unit. */
function spanWords(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  if (minutes < 60) return plural(Math.max(1, minutes), 'minute');
  const hours = Math.round(minutes / 60);
  if (hours < 48) return plural(hours, 'hour');
  return plural(Math.round(hours / 24), 'day');
}

/** A past or present moment: "just now", "12 minutes ago (14:05 UTC)", "yesterday at 09:12 UTC", "3 Dec 2026 at 14:05 UTC"; `never` for null. */
export function whenWords(at: string | Date | null | undefined, now: Date, never = 'never'): string {
  if (at === null || at === undefined) return never;
  const d = new Date(at);
  const ago = now.getTime() - d.getTime();
  if (ago >= 0 && ago < 60_000) return 'just now';
  if (ago >= 0 && ago < 3_600_000) return `${spanWords(ago)} ago (${clock(d)})`;
  return `${dayWords(d, now)} at ${clock(d)}`;
}

/** A deadline: "in 9 minutes, at 14:05 UTC", "in 3 days, on 9 Dec 2026 at 14:05 UTC"; "already passed" when it has. */
export function untilWords(at: string | Date, now: Date): string {
  const d = new Date(at);
  const left = d.getTime() - now.getTime();
  if (left <= 0) return `already passed (${dayWords(d, now)} at ${clock(d)})`;
  const day = dayWords(d, now);
  return `in ${spanWords(left)}, ${day === 'today' ? 'at' : `${day === 'tomorrow' ? '' : 'on '}${day} at`} ${clock(d)}`;
}
