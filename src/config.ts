/**
 * Environment → typed, validated configuration. The one place that reads process.env
 * (docs/deploy.md).
 */

export interface Config {
  port: number;
  host: string;
  databaseUrl: string;
  adminToken: string | null;
  /** 'host:port' entries HTTP Request actions may reach although private */
  allowTargets: string[];
  sessionTtlHours: number;
  logLevel: string;
  /** Idle time after which a mock session (X-Mockyard-Session) is forgotten. */
  sessionIdleHours: number;
  /** Request-log entries kept per project. */
  requestLogKeep: number;
  /** How often (ms) the request log writes its queued entries to the database. */
  requestLogFlushMs: number;
  maxProjectsPerUser: number;
  maxEndpointsPerProject: number;
  /** Login and register attempts per client address per minute (per email: a third of it). */
  authRatePerMinute: number;
  /**
   * Whose X-Forwarded-For to believe for the client address (rate limits): false (default),
   * true, a hop count, or a comma list of proxy addresses/CIDRs.
   */
  trustProxy: boolean | number | string;
  /** Where the built dashboard lives (served at /). */
  webDir: string | null;
  /** Time a client has to send the request headers (slow-loris guard), ms. */
  headersTimeoutMs: number;
  /** Time a client has to send the whole request (headers and body), ms. */
  requestTimeoutMs: number;
  /** Idle time after which a keep-alive connection is closed, ms. */
  keepAliveTimeoutMs: number;
  /** Outbound requests (HTTP Request actions, fallback proxy) in flight at once in this process. */
  maxEgressInFlight: number;
  /** With it set, `<slug>.<mockDomain>` serves the project at its real paths (SECURITY.md); lower case. */
  mockDomain: string | null;
  /** Scheme of the mock-host URLs the API shows (`http` or `https`). */
  mockScheme: 'http' | 'https';
  /** Caps on what one request can make the server produce or keep (docs/limits.md). */
  caps: Caps;
  /** Import documents (OpenAPI and the other formats) up to this many bytes. */
  maxImportBytes: number;
  /** CPU time one import document may take to parse and validate, ms (its wall time: 30 times this). */
  importTimeoutMs: number;
  /** Nice value of the import workers' threads, 0-19: what the mocks leave of a busy core (docs/limits.md). */
  importNice: number;
  /** Bytes record mode inflates of one upstream answer; a larger one is not recorded. */
  maxRecordBytes: number;
  /** Header names (lower case) the request log keeps as `[redacted]`, besides the credentials. */
  redactHeaders: string[];
  /** The plan of new accounts (MOCKYARD_DEFAULT_PLAN). */
  defaultPlan: Plan;
}

import { type Caps, DEFAULT_CAPS, PLANS, type Plan } from './domain/constants.js';

export { type Caps, DEFAULT_CAPS };

export class ConfigError extends Error {}

function plan(raw: string | undefined): Plan {
  if (raw === undefined || raw.trim() === '') return 'free';
  const p = raw.trim().toLowerCase();
  if (!(PLANS as readonly string[]).includes(p))
    throw new ConfigError(`MOCKYARD_DEFAULT_PLAN must be one of ${PLANS.join(', ')}, got "${raw}"`);
  return p as Plan;
}

function int(env: NodeJS.ProcessEnv, name: string, def: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return n;
}

function trustProxy(raw: string | undefined): boolean | number | string {
  if (raw === undefined || raw === '' || raw === 'false') return false;
  if (raw === 'true') return true;
  if (/^\d+$/.test(raw)) return Number(raw);
  return raw;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const databaseUrl = env.DATABASE_URL || 'sqlite:./data/mockyard.db';
  if (!/^(sqlite:|postgres:\/\/|postgresql:\/\/)/.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL must be sqlite:<file>, sqlite::memory:, or a postgres:// URL');
  }
  const hours = Number(env.SESSION_TTL_HOURS ?? 720);
  if (!Number.isFinite(hours) || hours <= 0) throw new ConfigError('SESSION_TTL_HOURS must be a positive number');
  const config: Config = {
    port: int(env, 'PORT', 3000, 0, 65535),
    host: env.HOST || '127.0.0.1',
    databaseUrl,
    adminToken: env.MOCKYARD_ADMIN_TOKEN ? env.MOCKYARD_ADMIN_TOKEN : null,
    allowTargets: (env.MOCKYARD_ALLOW_TARGETS ?? '')
      .split(',')
      .map((s) => s.trim().toLowerCase())
      .filter(Boolean),
    sessionTtlHours: hours,
    logLevel: env.LOG_LEVEL || 'info',
    sessionIdleHours: Number(env.MOCKYARD_SESSION_IDLE_HOURS ?? 24) || 24,
    requestLogKeep: int(env, 'MOCKYARD_REQUEST_LOG_KEEP', 1000, 100, 100_000),
    requestLogFlushMs: int(env, 'MOCKYARD_REQUEST_LOG_FLUSH_MS', 250, 50, 600_000),
    maxProjectsPerUser: int(env, 'MOCKYARD_MAX_PROJECTS', 2000, 1, 1_000_000),
    maxEndpointsPerProject: int(env, 'MOCKYARD_MAX_ENDPOINTS', 20_000, 1, 1_000_000),
    authRatePerMinute: int(env, 'MOCKYARD_AUTH_RATE_LIMIT', 30, 1, 1_000_000),
    trustProxy: trustProxy(env.MOCKYARD_TRUST_PROXY),
    webDir: env.MOCKYARD_WEB_DIR ?? null,
    headersTimeoutMs: int(env, 'MOCKYARD_HEADERS_TIMEOUT_MS', 20_000, 100, 600_000),
    requestTimeoutMs: int(env, 'MOCKYARD_REQUEST_TIMEOUT_MS', 120_000, 100, 3_600_000),
    keepAliveTimeoutMs: int(env, 'MOCKYARD_KEEP_ALIVE_TIMEOUT_MS', 5_000, 100, 600_000),
    maxEgressInFlight: int(env, 'MOCKYARD_MAX_EGRESS_IN_FLIGHT', 64, 1, 100_000),
    mockDomain: null,
    mockScheme: 'http',
    caps: {
      renderChars: int(env, 'MOCKYARD_MAX_RENDER_CHARS', DEFAULT_CAPS.renderChars, 1024, 64 * 1024 * 1024),
      templateIterations: int(env, 'MOCKYARD_TEMPLATE_MAX_ITERATIONS', DEFAULT_CAPS.templateIterations, 1, 10_000_000),
      wsMessageBytes: int(env, 'MOCKYARD_MAX_WS_MESSAGE_BYTES', DEFAULT_CAPS.wsMessageBytes, 16, 64 * 1024 * 1024),
      socketsPerProject: int(env, 'MOCKYARD_MAX_SOCKETS', DEFAULT_CAPS.socketsPerProject, 1, 1_000_000),
      wsIdleMs: int(env, 'MOCKYARD_WS_IDLE_MS', DEFAULT_CAPS.wsIdleMs, 100, 24 * 3_600_000),
      storedValueBytes: int(
        env,
        'MOCKYARD_MAX_STORED_VALUE_BYTES',
        DEFAULT_CAPS.storedValueBytes,
        16,
        16 * 1024 * 1024,
      ),
      storedNames: int(env, 'MOCKYARD_MAX_STORED_NAMES', DEFAULT_CAPS.storedNames, 1, 1_000_000),
      sessionsPerProject: int(env, 'MOCKYARD_MAX_SESSIONS', DEFAULT_CAPS.sessionsPerProject, 1, 10_000_000),
    },
    maxImportBytes: int(env, 'MOCKYARD_MAX_IMPORT_BYTES', 32 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    importTimeoutMs: int(env, 'MOCKYARD_IMPORT_TIMEOUT_MS', 20_000, 100, 600_000),
    importNice: int(env, 'MOCKYARD_IMPORT_NICE', 19, 0, 19),
    maxRecordBytes: int(env, 'MOCKYARD_MAX_RECORD_BYTES', 16 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    defaultPlan: plan(env.MOCKYARD_DEFAULT_PLAN),
    redactHeaders: (env.MOCKYARD_REDACT_HEADERS ?? '')
      .split(',')
      .map((s) => s.trim().toLowerCase())
      .filter(Boolean),
  };
  const domain = (env.MOCKYARD_MOCK_DOMAIN ?? '')
    .trim()
    .toLowerCase()
    .replace(/^\.+|\.+$/g, '');
  if (domain !== '' && !/^[a-z0-9-]+(\.[a-z0-9-]+)*$/.test(domain)) {
    throw new ConfigError(`MOCKYARD_MOCK_DOMAIN must be a host name such as mock.example.com, got "${domain}"`);
  }
  config.mockDomain = domain || null;
  const scheme = env.MOCKYARD_MOCK_SCHEME || 'http';
  if (scheme !== 'http' && scheme !== 'https') throw new ConfigError('MOCKYARD_MOCK_SCHEME must be http or https');
  config.mockScheme = scheme;
  if (config.headersTimeoutMs > config.requestTimeoutMs) {
    throw new ConfigError('MOCKYARD_HEADERS_TIMEOUT_MS must not exceed MOCKYARD_REQUEST_TIMEOUT_MS');
  }
  return config;
}
