// The environment, parsed once at start (conventions §6). Everything else receives a Config.
import path from 'node:path';
import fs from 'node:fs';
import { z } from 'zod';
import { parseTrustedProxies } from './trusted-proxies.ts';

const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().min(1).default('0.0.0.0'),
  SITELINE_BASE_URL: z
    .string()
    .optional()
    .transform((v) => v || undefined)
    .pipe(z.string().url().optional()),
  DATABASE_URL: z
    .string()
    .optional()
    .transform((v) => v || undefined),
  DATABASE_READ_URL: z
    .string()
    .default('')
    .transform(splitList)
    .pipe(z.array(z.string().regex(/^postgres(ql)?:\/\/\S+$/, 'PostgreSQL connection URLs (postgres://...), comma-separated'))),
  SITELINE_DATA_DIR: z.string().min(1).default('./.siteline'),
  SITELINE_SOURCE_DIR: z
    .string()
    .optional()
    .transform((v) => v || undefined),
  SITELINE_PLACES_DIR: z
    .string()
    .optional()
    .transform((v) => v || undefined),
  SITELINE_AUTO_IMPORT: z.enum(['0', '1']).default('1'),
  MCP_ALLOWED_ORIGINS: z.string().default(''),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'silent']).default('info'),
  SITELINE_SNAPSHOT_CACHE: z.coerce.number().int().min(0).max(20_000).default(2_000),
  SITELINE_HOT_INDEX_BUDGET_MB: z.coerce.number().int().min(1).max(1_048_576).default(640),
  SITELINE_HOT_INDEX: z.enum(['0', '1']).default('1'),
  SITELINE_PLACES: z
    .string()
    .default('')
    .transform(splitList)
    .pipe(z.array(z.string().regex(/^[a-z0-9][a-z0-9_.-]*$/, 'place slugs or ids, comma-separated'))),
  SITELINE_INSTANCE: z
    .string()
    .optional()
    .transform((v) => v?.trim() || undefined),
  SITELINE_INSTANCES: z.string().default('').transform(splitList),
  SITELINE_OWNERS_PER_PLACE: z.coerce.number().int().min(1).max(16).default(1),
  STRIPE_SECRET_KEY: z
    .string()
    .optional()
    .transform((v) => v || undefined),
  STRIPE_WEBHOOK_SECRET: z
    .string()
    .optional()
    .transform((v) => v || undefined),
  STRIPE_API_BASE: z
    .string()
    .optional()
    .transform((v) => v || undefined)
    .pipe(z.string().url().optional()),
  SITELINE_STAFF_EMAILS: z.string().default(''),
  SITELINE_BASEMAP_URL: z
    .string()
    .optional()
    .transform((v) => v || undefined)
    .pipe(
      z
        .string()
        .regex(/^https?:\/\/[^\s]+$/, 'an http(s) raster tile URL template')
        .refine((v) => ['{z}', '{x}', '{y}'].every((p) => v.includes(p)), 'must contain {z}, {x} and {y}')
        .optional(),
    ),
  SITELINE_TRUSTED_PROXIES: z.string().default(''),
  SITELINE_SIGNUPS_PER_CLIENT_HOURLY: z.coerce.number().int().min(1).default(30),
  SITELINE_SIGNUPS_HOURLY: z.coerce.number().int().min(1).default(300),
  SITELINE_SMTP_URL: z
    .string()
    .optional()
    .transform((v) => v?.trim() || undefined)
    .pipe(
      z
        .string()
        .refine(smtpUrlOk, 'not an SMTP server URL: use smtp://user:password@host:587 (STARTTLS when offered) or smtps://user:password@host:465')
        .optional(),
    ),
  SITELINE_MAIL_FROM: z
    .string()
    .optional()
    .transform((v) => v?.trim() || undefined)
    .pipe(
      z
        .string()
        .regex(/^[^\r\n]*<?[^\s@<>]+@[^\s@<>]+>?$/, 'a sender address, e.g. siteline@example.org or "siteline <siteline@example.org>"')
        .optional(),
    ),
  SITELINE_MAIL_OUTBOX: z.enum(['0', '1']).default('0'),
  SITELINE_MAIL_RETRY_BASE_MS: z.coerce.number().int().min(10).max(3_600_000).default(30_000),
  SITELINE_MAIL_RETRY_MAX_MS: z.coerce.number().int().min(10).max(86_400_000).default(3_600_000),
  SITELINE_MAIL_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(100).default(15),
  SITELINE_MAIL_POLL_MS: z.coerce.number().int().min(10).max(600_000).default(5_000),
  SITELINE_METRICS_TOKEN: z
    .string()
    .optional()
    .transform((v) => v || undefined)
    .pipe(z.string().min(16, 'at least 16 characters (a bearer secret)').optional()),
  SITELINE_SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).max(600_000).default(20_000),
  SITELINE_PRESTOP_MS: z.coerce.number().int().min(0).max(600_000).default(5_000),
  SITELINE_ANALYSIS_WORKERS: z.coerce.number().int().min(0).max(64).default(2),
  SITELINE_ANALYSIS_LEASE_MS: z.coerce.number().int().min(200).max(3_600_000).default(30_000),
  SITELINE_ANALYSIS_POLL_MS: z.coerce.number().int().min(10).max(60_000).default(500),
});

/** A comma-separated list, trimmed, empty items dropped. */
function splitList(v: string): string[] {
  return v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/** Every variable the service's configuration reads (docs/deploy.md lists each; a test checks). */
export const CONFIG_VARIABLES: readonly string[] = Object.keys(envSchema.shape);

/** A URL nodemailer can connect to: smtp: or smtps:, a host, an optional port. */
function smtpUrlOk(v: string): boolean {
  try {
    const u = new URL(v);
    return (u.protocol === 'smtp:' || u.protocol === 'smtps:') && u.hostname !== '' && (u.port === '' || Number(u.port) > 0);
  } catch {
    return false;
  }
}

/** True for a base URL on this machine (a developer's laptop, a test). */
export function isLoopbackUrl(baseUrl: string): boolean {
  const host = new URL(baseUrl).hostname;
  return host === 'localhost' || host === '127.0.0.1' || host === '[::1]';
}

/**
 * How mail leaves (docs/mail.md). smtp: queued in the database and sent by the mail worker. outbox: the
 * development outbox (a loopback base URL without SMTP, or SITELINE_MAIL_OUTBOX=1). none: a public base
 * URL without SMTP; the service refuses to start (assertMailConfigured).
 */
export interface MailConfig {
  transport: 'smtp' | 'outbox' | 'none';
  /** SITELINE_SMTP_URL (may hold a password: never logged). */
  smtpUrl: string | undefined;
  /** The From: of every message. */
  from: string;
  /** Delay before the first retry, doubled at each attempt up to retryMaxMs. */
  retryBaseMs: number;
  retryMaxMs: number;
  /** Attempts before a message that keeps failing is recorded as failed. */
  maxAttempts: number;
  /** How often an idle worker looks for due messages (an enqueue in this process wakes it at once). */
  pollMs: number;
}

export interface AnalysisWorkersConfig {
  /** Concurrent worker loops in this process (0: no workers here). */
  concurrency: number;
  /** How long a claim holds a run before another worker may take it (renewed while the run works). */
  leaseMs: number;
  /** How often an idle loop looks for runs enqueued by other processes. */
  pollMs: number;
}

/**
 * The places an instance owns: named (SITELINE_PLACES: slugs or place ids), or its share of a
 * rendezvous hash over the instances of a routing table (SITELINE_INSTANCE among SITELINE_INSTANCES,
 * each place owned by SITELINE_OWNERS_PER_PLACE of them).
 */
export type PlaceOwnershipConfig = { kind: 'named'; places: string[] } | { kind: 'hashed'; instance: string; instances: string[]; ownersPerPlace: number };

export interface Config {
  port: number;
  host: string;
  /** Public base URL, no trailing slash. */
  baseUrl: string;
  /** Set when the service runs on PostgreSQL; absent means embedded PGlite. */
  databaseUrl: string | undefined;
  /**
   * Streaming replicas of the PostgreSQL database (DATABASE_READ_URL, comma-separated): the lookup path's
   * reads go to one of them, writes and read-after-write to databaseUrl (src/db/read-replicas.ts). Empty: none.
   */
  databaseReadUrls: string[];
  /** Where PGlite data, signing keys and the dev outbox live. */
  dataDir: string;
  /** Where place source files are read from (default ../shared/data when it exists). */
  sourceDir: string | undefined;
  /** Where place manifests and rules files live (default: the repository's places/). */
  placesDir: string;
  /** Import the default places on start when the database holds none. */
  autoImport: boolean;
  mcpAllowedOrigins: string[];
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'silent';
  /** How many recent snapshot answers the MCP tool and the /sites page keep in memory (0: none). */
  snapshotCacheEntries: number;
  /** The byte budget (MB) every place's hot index shares, least recently used evicted first (docs/scaling.md). */
  hotIndexBudgetMb: number;
  /** false (SITELINE_HOT_INDEX=0): every read about a place goes through SQL, no hot index is loaded. */
  hotIndex: boolean;
  /**
   * Which places this instance keeps hot indexes for (src/places/place-ownership.ts); the others are
   * answered through SQL and never loaded. Absent: every place.
   */
  placeOwnership: PlaceOwnershipConfig | undefined;
  /** The analysis workers of this process (src/analysis/analysis-workers.ts). */
  analysisWorkers: AnalysisWorkersConfig;
  /** Stripe Checkout for buying API credit; absent: purchasing is not set up (credit is granted by the operator). apiBase: another API host (stripe-mock, tests). */
  stripe: { secretKey: string; webhookSecret: string; apiBase?: string } | undefined;
  /** Addresses (lower-cased) that seed staff: each made staff once, when an account has verified it (SITELINE_STAFF_EMAILS, comma-separated; src/staff/staff-members.ts). */
  staffEmails: string[];
  /** A raster tile URL template ({z}/{x}/{y}) drawn under siteline's own map layers; none by default. */
  basemapUrl: string | undefined;
  /** Reverse proxies (CIDRs) whose X-Forwarded-For/-Host/-Proto are believed; empty: none. */
  trustedProxies: string[];
  /** Sign-ups (that reach password hashing) per client address per hour, and for the whole service. */
  signUpsPerClientHourly: number;
  signUpsHourly: number;
  mail: MailConfig;
  /** Bearer token for GET /metrics; absent: /metrics answers only on a loopback base URL, to loopback peers (else 404). */
  metricsToken: string | undefined;
  /** On SIGTERM: how long in-flight requests and analysis runs may take before connections are cut and leases released. */
  shutdownGraceMs: number;
  /** On SIGTERM: how long /readyz answers 503 shutting_down while the listener still serves, before it closes (docs/deploy.md). */
  prestopMs: number;
}

/** The repository's own places/ folder (manifests and rules files). */
export const REPO_PLACES_DIR = path.resolve(import.meta.dirname, '../places');

/** Where manifests and rules files are read from: SITELINE_PLACES_DIR, else the repository's places/. */
export function placesDirFromEnv(env: NodeJS.ProcessEnv = process.env): string {
  const v = env['SITELINE_PLACES_DIR'];
  return v ? path.resolve(v) : REPO_PLACES_DIR;
}

export class ConfigError extends Error {}

/** The shared data directory that ships beside the project, when it exists. */
function defaultSourceDir(cwd = process.cwd()): string | undefined {
  const candidate = path.resolve(cwd, '../shared/data');
  return fs.existsSync(candidate) ? candidate : undefined;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid environment:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  let trustedProxies: string[];
  try {
    trustedProxies = overrides.trustedProxies ? parseTrustedProxies(overrides.trustedProxies.join(',')) : parseTrustedProxies(e.SITELINE_TRUSTED_PROXIES);
  } catch (err) {
    throw new ConfigError(`Invalid environment:\n  SITELINE_TRUSTED_PROXIES: ${(err as Error).message}`);
  }
  const port = overrides.port ?? e.PORT;
  const baseUrl = (overrides.baseUrl ?? e.SITELINE_BASE_URL ?? `http://localhost:${port}`).replace(/\/+$/, '');
  return {
    port,
    host: overrides.host ?? e.HOST,
    baseUrl,
    databaseUrl: 'databaseUrl' in overrides ? overrides.databaseUrl : e.DATABASE_URL,
    databaseReadUrls: overrides.databaseReadUrls ?? readUrls(e.DATABASE_READ_URL, 'databaseUrl' in overrides ? overrides.databaseUrl : e.DATABASE_URL),
    dataDir: path.resolve(overrides.dataDir ?? e.SITELINE_DATA_DIR),
    sourceDir: overrides.sourceDir ?? (e.SITELINE_SOURCE_DIR ? path.resolve(e.SITELINE_SOURCE_DIR) : defaultSourceDir()),
    placesDir: overrides.placesDir ?? placesDirFromEnv({ SITELINE_PLACES_DIR: e.SITELINE_PLACES_DIR }),
    autoImport: overrides.autoImport ?? e.SITELINE_AUTO_IMPORT === '1',
    mcpAllowedOrigins:
      overrides.mcpAllowedOrigins ??
      e.MCP_ALLOWED_ORIGINS.split(',')
        .map((s) => s.trim().replace(/\/+$/, ''))
        .filter(Boolean),
    logLevel: overrides.logLevel ?? e.LOG_LEVEL,
    snapshotCacheEntries: overrides.snapshotCacheEntries ?? e.SITELINE_SNAPSHOT_CACHE,
    hotIndexBudgetMb: overrides.hotIndexBudgetMb ?? e.SITELINE_HOT_INDEX_BUDGET_MB,
    hotIndex: overrides.hotIndex ?? e.SITELINE_HOT_INDEX === '1',
    placeOwnership: 'placeOwnership' in overrides ? overrides.placeOwnership : placeOwnership(e),
    analysisWorkers: overrides.analysisWorkers ?? {
      concurrency: e.SITELINE_ANALYSIS_WORKERS,
      leaseMs: e.SITELINE_ANALYSIS_LEASE_MS,
      pollMs: e.SITELINE_ANALYSIS_POLL_MS,
    },
    stripe: 'stripe' in overrides ? overrides.stripe : stripeConfig(e.STRIPE_SECRET_KEY, e.STRIPE_WEBHOOK_SECRET, e.STRIPE_API_BASE),
    staffEmails:
      overrides.staffEmails ??
      e.SITELINE_STAFF_EMAILS.split(',')
        .map((s) => s.trim().toLowerCase())
        .filter(Boolean),
    basemapUrl: 'basemapUrl' in overrides ? overrides.basemapUrl : e.SITELINE_BASEMAP_URL,
    trustedProxies,
    signUpsPerClientHourly: overrides.signUpsPerClientHourly ?? e.SITELINE_SIGNUPS_PER_CLIENT_HOURLY,
    signUpsHourly: overrides.signUpsHourly ?? e.SITELINE_SIGNUPS_HOURLY,
    mail: overrides.mail ?? mailConfig(e, baseUrl),
    metricsToken: 'metricsToken' in overrides ? overrides.metricsToken : e.SITELINE_METRICS_TOKEN,
    shutdownGraceMs: overrides.shutdownGraceMs ?? e.SITELINE_SHUTDOWN_GRACE_MS,
    prestopMs: overrides.prestopMs ?? e.SITELINE_PRESTOP_MS,
  };
}

/** Replicas need the primary: reads go to them, writes to DATABASE_URL. */
function readUrls(urls: string[], databaseUrl: string | undefined): string[] {
  if (urls.length > 0 && !databaseUrl)
    throw new ConfigError(
      'Invalid environment:\n  DATABASE_READ_URL: set with DATABASE_URL (the primary, where writes go); replicas of an embedded PGlite database do not exist.',
    );
  return urls;
}

/** SITELINE_PLACES, or SITELINE_INSTANCE within SITELINE_INSTANCES; not both, and neither half alone. */
function placeOwnership(e: z.infer<typeof envSchema>): PlaceOwnershipConfig | undefined {
  const bad = (msg: string) => new ConfigError(`Invalid environment:\n  ${msg}`);
  if (e.SITELINE_PLACES.length > 0) {
    if (e.SITELINE_INSTANCE || e.SITELINE_INSTANCES.length > 0)
      throw bad('SITELINE_PLACES: names the places itself; do not set SITELINE_INSTANCE/SITELINE_INSTANCES with it.');
    return { kind: 'named', places: e.SITELINE_PLACES };
  }
  if (!e.SITELINE_INSTANCE && e.SITELINE_INSTANCES.length === 0) return undefined;
  if (!e.SITELINE_INSTANCE) throw bad('SITELINE_INSTANCE: required with SITELINE_INSTANCES (which of the instances this one is).');
  if (e.SITELINE_INSTANCES.length === 0) throw bad('SITELINE_INSTANCES: required with SITELINE_INSTANCE (the routing table: every instance, comma-separated).');
  if (!e.SITELINE_INSTANCES.includes(e.SITELINE_INSTANCE))
    throw bad(`SITELINE_INSTANCE: "${e.SITELINE_INSTANCE}" is not one of SITELINE_INSTANCES (${e.SITELINE_INSTANCES.join(', ')}).`);
  if (new Set(e.SITELINE_INSTANCES).size !== e.SITELINE_INSTANCES.length) throw bad('SITELINE_INSTANCES: an instance is named twice.');
  return {
    kind: 'hashed',
    instance: e.SITELINE_INSTANCE,
    instances: e.SITELINE_INSTANCES,
    ownersPerPlace: Math.min(e.SITELINE_OWNERS_PER_PLACE, e.SITELINE_INSTANCES.length),
  };
}

function mailConfig(e: z.infer<typeof envSchema>, baseUrl: string): MailConfig {
  const transport = e.SITELINE_SMTP_URL ? 'smtp' : isLoopbackUrl(baseUrl) || e.SITELINE_MAIL_OUTBOX === '1' ? 'outbox' : 'none';
  return {
    transport,
    smtpUrl: e.SITELINE_SMTP_URL,
    from: e.SITELINE_MAIL_FROM ?? `siteline <siteline@${new URL(baseUrl).hostname.replace(/^\[|\]$/g, '')}>`,
    retryBaseMs: e.SITELINE_MAIL_RETRY_BASE_MS,
    retryMaxMs: Math.max(e.SITELINE_MAIL_RETRY_MAX_MS, e.SITELINE_MAIL_RETRY_BASE_MS),
    maxAttempts: e.SITELINE_MAIL_MAX_ATTEMPTS,
    pollMs: e.SITELINE_MAIL_POLL_MS,
  };
}

/**
 * The service sends mail that people need (verification, password reset): on a public base URL it
 * refuses to start without a way to send it, rather than drop every message silently.
 */
export function assertMailConfigured(config: Config): void {
  if (config.mail.transport !== 'none') return;
  throw new ConfigError(
    `Invalid environment:\n  SITELINE_SMTP_URL: required on a public base URL (${config.baseUrl}): set it to your mail server ` +
      `(smtp://user:password@host:587), or set SITELINE_MAIL_OUTBOX=1 to keep mail in the development outbox (no mail leaves the machine).`,
  );
}

function stripeConfig(secretKey: string | undefined, webhookSecret: string | undefined, apiBase: string | undefined): Config['stripe'] {
  if (!secretKey && !webhookSecret) return undefined;
  if (!secretKey || !webhookSecret)
    throw new ConfigError(
      'Invalid environment:\n  STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET are set together (one without the other cannot take payments safely).',
    );
  return { secretKey, webhookSecret, ...(apiBase ? { apiBase } : {}) };
}
