// A context's configuration and caches for reading rules files and held documents without a database
// (rules and envelope tests): every call in one test file shares the caches, as one context would.
import { loadConfig, type Config } from '../../src/config.ts';
import { Caches } from '../../src/caches.ts';

const base = loadConfig({ ...process.env, DATABASE_URL: '', LOG_LEVEL: 'silent' });
/** The caches every rulesIn() of this test file reads through (rulesCaches.rulesReloaded() after rewriting a rules file). */
export const rulesCaches = new Caches(base);

/** The service's configuration (places and source directories from the environment) with these overrides, over the shared caches. */
export function rulesIn(overrides: Partial<Pick<Config, 'placesDir' | 'sourceDir'>> = {}): { config: Config; caches: Caches } {
  return { config: { ...base, ...overrides }, caches: rulesCaches };
}
