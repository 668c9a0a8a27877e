// How a background job (the accuracy audit after a start's imports) gives way to requests. PGlite's
// queries resolve as promises without real I/O, so a loop of awaited queries never lets the event loop
// read a new request until it yields on its own; and on two cores a job running flat out beside the
// server slows every answer. So the job calls the pause below before each unit of work: it waits while
// requests came in the last QUIET_MS (the HTTP server stamps ctx.lifecycle.lastRequestAt as each
// request starts and ends), but never more than MAX_DEFER_MS, so under steady traffic it still makes
// one step per MAX_DEFER_MS (the Cambridge audit then takes hours instead of a minute or two: it is a
// report, answers come first); then it yields to the event loop once (a request that arrived is read
// before the next step).
import { performance } from 'node:perf_hooks';
import type { AppContext } from '../context.ts';

const QUIET_MS = 100;
const MAX_DEFER_MS = 2_000;

export function giveWayToRequests(ctx: Pick<AppContext, 'lifecycle'>): () => Promise<void> {
  return async () => {
    // Stopping (SIGTERM): the job ends at this step, before the database closes under it.
    if (ctx.lifecycle?.draining) throw new Error('the service is stopping');
    const start = performance.now();
    for (;;) {
      const last = ctx.lifecycle?.lastRequestAt;
      const now = performance.now();
      if (last === undefined || now - last >= QUIET_MS || now - start >= MAX_DEFER_MS) break;
      await new Promise((resolve) => setTimeout(resolve, Math.max(1, Math.min(QUIET_MS - (now - last), MAX_DEFER_MS - (now - start)))));
    }
    await new Promise((resolve) => setImmediate(resolve));
  };
}
