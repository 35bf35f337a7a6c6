import { isIP } from 'node:net';
import { DEFAULT_DATABASE_URL, RATE_LIMIT_MAX, RULES_NEED_TOKENS } from './settings.js';

// where they were before src/settings.ts held them, for code of yours that imports them from here
export { RATE_LIMIT_MAX, RULES_NEED_TOKENS };

/** The server's settings, read once at start-up from the environment (see README.md § Configuration). */
export interface Config {
  port: number;
  host: string;
  databaseUrl: string;
  /** PostgreSQL connections per instance (DATABASE_POOL_SIZE); SQLite uses one */
  databasePoolSize: number;
  /** PostgreSQL: the longest a statement of a request may run, in ms (DATABASE_STATEMENT_TIMEOUT; 0: no limit) */
  databaseStatementTimeoutMs: number;
  /** PostgreSQL: what the connections go through (DATABASE_POOLER, see readPooler) */
  databasePooler: Pooler;
  logLevel: string;
  /** the caps on listing statements that scan a table (DATABASE_SCAN_*, see readScanSettings) */
  scans: ScanSettings;
  auth: AuthConfig;
  /** the key that signs page cursors: every instance behind one load balancer needs the same one */
  cursorSecret?: string;
  /** requests per client and window; RATE_LIMIT_MAX overrides the definition's, 0 turns the limit off */
  rateLimitMax: number;
  /** REDIS_URL: rate limits counted in Redis, shared by every instance (else each instance counts its own) */
  redisUrl?: string;
  timeouts: Timeouts;
  /** MAX_EVENT_LOOP_DELAY: above it, requests are answered 503 at once (see http/pressure.ts); 0: never */
  maxEventLoopDelayMs: number;
  /** TRUST_PROXY (see readTrustProxy); buildApp reads it from the environment when not given */
  trustProxy: TrustProxy;
  /** METRICS_PORT, METRICS_HOST (see readMetrics); buildApp reads them from the environment when not given */
  metrics: MetricsSettings | null;
}

/** Where Prometheus scrapes `GET /metrics`: a listener of its own, never the API's (see metrics/metrics.ts). */
export interface MetricsSettings {
  port: number;
  host: string;
}

/**
 * METRICS_PORT: the port of `GET /metrics` (none, and no metrics at all, unless set; never PORT); METRICS_HOST: its
 * interface, HOST's unless set (`127.0.0.1` keeps the metrics on the machine when the API listens on `0.0.0.0`).
 */
export function readMetrics(env: NodeJS.ProcessEnv): MetricsSettings | null {
  const value = env.METRICS_PORT;
  if (value === undefined || value === '') return null;
  const n = /^[0-9]{1,5}$/.test(value) ? Number(value) : NaN;
  if (!(n >= 1 && n <= 65535))
    throw new ConfigError(`METRICS_PORT must be a whole number from 1 to 65535, not "${value}"`);
  if (n === port(env.PORT))
    throw new ConfigError(
      `METRICS_PORT must differ from PORT (${n}): the metrics have a listener of their own`,
    );
  return { port: n, host: env.METRICS_HOST || env.HOST || '127.0.0.1' };
}

/**
 * How long a client may take (0: no limit). `requestMs` (REQUEST_TIMEOUT, default 30 s): to send a whole request,
 * headers and body, so that a slow or trickled body cannot hold a connection open; `connectionMs`
 * (CONNECTION_TIMEOUT, default 60 s): a connection on which nothing at all happens is closed.
 */
export interface Timeouts {
  requestMs: number;
  connectionMs: number;
}

export function readTimeouts(env: NodeJS.ProcessEnv): Timeouts {
  return {
    requestMs: milliseconds('REQUEST_TIMEOUT', env.REQUEST_TIMEOUT, 30_000),
    connectionMs: milliseconds('CONNECTION_TIMEOUT', env.CONNECTION_TIMEOUT, 60_000),
  };
}

/** MAX_EVENT_LOOP_DELAY: milliseconds, 1000 unless set, 0 for never (see http/pressure.ts). */
export const readMaxEventLoopDelay = (env: NodeJS.ProcessEnv): number =>
  milliseconds('MAX_EVENT_LOOP_DELAY', env.MAX_EVENT_LOOP_DELAY, 1000);

/** Fastify's `trustProxy`: none or any, the addresses believed, or which hop is (a number of hops). */
export type TrustProxy = boolean | string | ((address: string, hop: number) => boolean);

/**
 * TRUST_PROXY: which proxies in front of this server may say, in X-Forwarded-For / -Proto / -Host, who the client is
 * and what it asked for (Fastify's `trustProxy`): unset or `false` for none, `true` for any, a number for that many
 * hops, or comma-separated addresses and CIDR ranges (`127.0.0.1,10.0.0.0/8`, or `loopback`).
 */
export function readTrustProxy(value: string | undefined): TrustProxy {
  if (value === undefined || value === '' || value === 'false') return false;
  if (value === 'true') return true;
  if (/^[0-9]{1,3}$/.test(value)) {
    const hops = Number(value);
    return (_address: string, hop: number) => hop < hops;
  }
  const entries = value.split(',').map((entry) => entry.trim());
  if (entries.every(isTrustedRange)) return entries.join(',');
  throw new ConfigError(
    `TRUST_PROXY must be true, false, a number of hops or comma-separated addresses and CIDR ranges, not "${value}"`,
  );
}

/** An address, a CIDR range (`10.0.0.0/8`, `fd00::/8`) or one of proxy-addr's names, as Fastify takes them. */
function isTrustedRange(entry: string): boolean {
  if (['loopback', 'linklocal', 'uniquelocal'].includes(entry)) return true;
  const [address = '', bits, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  return bits === undefined || (/^[0-9]{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128));
}

/** A duration in the environment: whole milliseconds, `fallback` when unset; `zero` says what 0 means. */
export function milliseconds(
  name: string,
  value: string | undefined,
  fallback: number,
  zero = 'no limit',
): number {
  if (value === undefined || value === '') return fallback;
  const n = /^[0-9]+$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n))
    throw new ConfigError(`${name} must be a whole number of milliseconds (0: ${zero}), not "${value}"`);
  return n;
}

/** How bearer tokens are verified: HS256 with `secret`, or RS256/ES256 with the key set at `jwksUrl`. */
export interface AuthConfig {
  secret?: string;
  jwksUrl?: string;
  issuer?: string;
  audience?: string;
}

/** HS256 keys shorter than this are refused: they can be guessed (RFC 7518 §3.2). */
const MIN_SECRET_BYTES = 32;

export class ConfigError extends Error {
  override name = 'ConfigError';
}

function port(value: string | undefined): number {
  if (value === undefined || value === '') return 3000;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) {
    throw new ConfigError(`PORT must be a whole number from 0 to 65535, not "${value}"`);
  }
  return n;
}

function rateLimitMax(value: string | undefined): number {
  if (value === undefined || value === '') return RATE_LIMIT_MAX;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0)
    throw new ConfigError(`RATE_LIMIT_MAX must be a whole number (0: no limit), not "${value}"`);
  return n;
}

function poolSize(value: string | undefined): number {
  if (value === undefined || value === '') return 10;
  const n = /^[0-9]+$/.test(value) ? Number(value) : NaN;
  if (!Number.isInteger(n) || n < 1 || n > 1000)
    throw new ConfigError(`DATABASE_POOL_SIZE must be a whole number from 1 to 1000, not "${value}"`);
  return n;
}

/** DATABASE_STATEMENT_TIMEOUT: milliseconds, 10000 unless set, 0 for no limit. */
export const statementTimeoutMs = (value: string | undefined): number =>
  milliseconds('DATABASE_STATEMENT_TIMEOUT', value, 10_000);

/**
 * What stands between the server and PostgreSQL (DATABASE_POOLER): `session` (the default), the database itself or a
 * pooler that gives each client connection a server connection of its own for as long as it lasts; `transaction`, a
 * pooler that gives it one for a transaction at a time (PgBouncer's `pool_mode = transaction`, RDS Proxy, Supabase's
 * and Neon's pooled ports). Then the server keeps no state in a connection between two transactions: no named
 * prepared statements, no settings at connection start or per session (the statement timeout is set in each
 * transaction), and transaction-scoped advisory locks only (see db/pg-session.ts). SQLite reads neither.
 */
export type Pooler = 'session' | 'transaction';

export function readPooler(value: string | undefined): Pooler {
  if (value === undefined || value === '') return 'session';
  if (value === 'session' || value === 'transaction') return value;
  throw new ConfigError(
    `DATABASE_POOLER must be "session" (a direct connection, or a pooler in session mode) or "transaction" (a pooler in transaction mode), not "${value}"`,
  );
}

/**
 * The caps on listing statements that scan a table (see db/cost.ts, db/scan-gate.ts). `slots`
 * (DATABASE_SCAN_POOL_SIZE): how many run at once, on SQLite each on a worker thread of its own (default: the cores
 * but one, 1 to 4), on PostgreSQL each on a connection of a pool of their own (default: a quarter of
 * DATABASE_POOL_SIZE, at least 1); `queue` (DATABASE_SCAN_QUEUE): how many more may wait (default: 4 per slot);
 * `perClient` (DATABASE_SCAN_PER_CLIENT, default 2): how many one client (the rate limit's key) may have running or
 * waiting. 0 for `slots` or `queue`: the default.
 */
export interface ScanSettings {
  slots: number;
  queue: number;
  perClient: number;
}

export function readScanSettings(env: NodeJS.ProcessEnv): ScanSettings {
  return {
    slots: count('DATABASE_SCAN_POOL_SIZE', env.DATABASE_SCAN_POOL_SIZE, 0, 0, 256),
    queue: count('DATABASE_SCAN_QUEUE', env.DATABASE_SCAN_QUEUE, 0, 0, 10_000),
    perClient: count('DATABASE_SCAN_PER_CLIENT', env.DATABASE_SCAN_PER_CLIENT, 2, 1, 10_000),
  };
}

function count(name: string, value: string | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined || value === '') return fallback;
  const n = /^[0-9]+$/.test(value) ? Number(value) : NaN;
  if (!Number.isInteger(n) || n < min || n > max)
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, not "${value}"`);
  return n;
}

function redisUrl(value: string): string {
  if (!/^rediss?:\/\/./.test(value))
    throw new ConfigError(`REDIS_URL must start with "redis://" or "rediss://"${notScheme(value)}`);
  return value;
}

/**
 * What an error says after `must start with …` of a URL refused for its scheme: its scheme when it has one
 * (`mysql://`), else nothing of it: the part before a colon of `user:password@host` is a user name, and a value that
 * is no URL may be a password.
 */
export function notScheme(value: string): string {
  const scheme = /^([a-z][a-z0-9+.-]{0,19}):\/\//i.exec(value)?.[1];
  return scheme === undefined ? ' (the value is not shown: it may hold a password)' : `, not "${scheme}://"`;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function logLevel(value: string | undefined): string {
  if (value === undefined || value === '') return 'info';
  if (!LOG_LEVELS.includes(value))
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, not "${value}"`);
  return value;
}

const optional = (value: string | undefined): string | undefined =>
  value === undefined || value === '' ? undefined : value;

export function readAuthConfig(env: NodeJS.ProcessEnv): AuthConfig {
  const auth: AuthConfig = {};
  const secret = optional(env.JWT_SECRET);
  const jwksUrl = optional(env.JWT_JWKS_URL);
  if (secret !== undefined) auth.secret = secret;
  if (jwksUrl !== undefined) auth.jwksUrl = jwksUrl;
  const issuer = optional(env.JWT_ISSUER);
  const audience = optional(env.JWT_AUDIENCE);
  if (issuer !== undefined) auth.issuer = issuer;
  if (audience !== undefined) auth.audience = audience;
  checkAuthConfig(auth);
  return auth;
}

/** Refuses to start a server that could not verify the tokens its rules need, or whose secret is weak. */
export function checkAuthConfig(auth: AuthConfig): void {
  if (auth.jwksUrl !== undefined) {
    if (!/^https?:\/\//.test(auth.jwksUrl) || !URL.canParse(auth.jwksUrl)) {
      throw new ConfigError(`JWT_JWKS_URL must be an http(s) URL, not "${auth.jwksUrl}"`);
    }
    return;
  }
  if (auth.secret === undefined) {
    if (RULES_NEED_TOKENS)
      throw new ConfigError(
        'set JWT_SECRET (32 bytes or more) or JWT_JWKS_URL: the access rules need tokens',
      );
    return;
  }
  if (Buffer.byteLength(auth.secret) < MIN_SECRET_BYTES) {
    throw new ConfigError(`JWT_SECRET must be at least ${MIN_SECRET_BYTES} bytes long`);
  }
}

export function readConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return {
    port: port(env.PORT),
    host: env.HOST || '127.0.0.1',
    databaseUrl: env.DATABASE_URL || DEFAULT_DATABASE_URL,
    databasePoolSize: poolSize(env.DATABASE_POOL_SIZE),
    databaseStatementTimeoutMs: statementTimeoutMs(env.DATABASE_STATEMENT_TIMEOUT),
    databasePooler: readPooler(env.DATABASE_POOLER),
    logLevel: logLevel(env.LOG_LEVEL),
    scans: readScanSettings(env),
    auth: readAuthConfig(env),
    rateLimitMax: rateLimitMax(env.RATE_LIMIT_MAX),
    ...(optional(env.CURSOR_SECRET) !== undefined && { cursorSecret: optional(env.CURSOR_SECRET) }),
    ...(optional(env.REDIS_URL) !== undefined && { redisUrl: redisUrl(env.REDIS_URL ?? '') }),
    timeouts: readTimeouts(env),
    maxEventLoopDelayMs: readMaxEventLoopDelay(env),
    trustProxy: readTrustProxy(env.TRUST_PROXY),
    metrics: readMetrics(env),
  };
}

/**
 * The key webhook signing secrets are sealed with, when one is set apart: WEBHOOK_SECRET_KEY, else WEBHOOK_KEY (its
 * former name). Without it they are sealed with CURSOR_SECRET's, else JWT_SECRET's (app.ts).
 */
export const webhookKey = (env: NodeJS.ProcessEnv): string | undefined =>
  env.WEBHOOK_SECRET_KEY || env.WEBHOOK_KEY || undefined;
