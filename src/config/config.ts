import path from 'node:path';
import { REGIONS, type Region } from '../domain/regions.js';
import { MESH_MAX_BYTES } from '../domain/uploads/mesh-formats.js';
import { type PluginConfig, readPluginsFile } from './plugins.js';

/** Everything the platform reads from its environment, parsed once at start and passed down. */
/** What one process runs (docs/design/processes.md#roles): the authorization server, regional APIs, the processing worker. */
export const ROLES = ['auth', 'api', 'worker'] as const;
export type Role = (typeof ROLES)[number];

export interface Config {
  /** RDP_ROLES: the roles this process runs; default all. */
  roles: ReadonlySet<Role>;
  /** RDP_REGIONS: the regions whose APIs an api process serves; default all four (auth and worker serve every region: platform.ts storesFor). */
  regions: readonly Region[];
  host: string;
  port: number;
  /** Public origin clients use, e.g. http://127.0.0.1:8080; addresses in responses derive from it. */
  publicUrl: string;
  dataDir: string;
  /** Unset: one SQLite file per store under dataDir. Set: PostgreSQL, one schema per store. */
  databaseUrl: string | undefined;
  databaseSchemaPrefix: string;
  /** Connections of each PostgreSQL pool (one per store this process opens, and the job queue's). */
  databasePoolSize: number;
  /** On SIGTERM: how long in-flight requests and running jobs may take before the process exits. */
  shutdownGraceSeconds: number;
  /** On SIGTERM: how long the process keeps accepting connections (with /readyz 503) before it stops listening; within the grace. */
  shutdownDelaySeconds: number;
  /** Set: GET /metrics asks for `Authorization: Bearer <token>`. Unset: open (keep it off the public load balancer). */
  metricsToken: string | undefined;
  /** Origins browser clients may call from (CORS); empty: none. `*` allows any. */
  corsOrigins: readonly string[];
  /** Public base address of each region's API (already holds the service path prefix). */
  regionUrls: Record<Region, string>;
  /** Where regions fetch the published key set when they run apart from the authorization server. */
  authJwksUrl: string | undefined;
  accessTokenTtlSeconds: number;
  refreshTokenTtlSeconds: number;
  /** How long after a refresh token's use a retry with it (its response lost) is still honoured. */
  refreshReuseGraceSeconds: number;
  /** How long a signed-in browser session of the consent and settings pages lasts. */
  sessionTtlSeconds: number;
  maxHierarchyDepth: number;
  trashRetentionDays: number;
  trashPurgeIntervalSeconds: number;
  /** RDP_AUDIT_RETENTION_DAYS: how long the housekeeper keeps audit events (docs/operations.md, "Retention"). */
  auditRetentionDays: number;
  jsonBodyLimitBytes: number;
  thumbnailMaxBytes: number;
  /** RDP_MESH_MAX_INPUT_BYTES: the bytes of a mesh input (all its session's files) finalize takes; at most, and by default, the 2 GiB of docs/design/meshes.md. */
  meshMaxInputBytes: number;
  /** How long an upload (its signed addresses, its reservation, a bundle's upload session) stays open. */
  uploadExpirySeconds: number;
  /** RDP_VIEWER_ASSETS_DIR: the built viewer files served at /viewer/assets (scripts/build-viewer); default dist/viewer. */
  viewerAssetsDir: string;
  /** RDP_CONSOLE_ASSETS_DIR: the built console files served at /console/assets (scripts/build-console); default dist/console. */
  consoleAssetsDir: string;
  logLevel: string;
  /** Fastify's trustProxy: whether X-Forwarded-For names the client address (behind a load balancer). */
  trustProxy: boolean | number | string;
  /** Unset: rate-limit buckets and sign-in throttles in this process. Set: shared through Redis. */
  redisUrl: string | undefined;
  redisKeyPrefix: string;
  rateLimit: {
    disabled: boolean;
    /** Defaults for organizations without limits of their own. */
    bucket: number;
    refillPerSecond: number;
    /**
     * Each organization's bucket for tile reads (tilesets and their files), apart from the one
     * above: a viewer streaming a large twin does not starve the organization's integrations.
     */
    tiles: { bucket: number; refillPerSecond: number };
  };
  blobs: BlobsConfig;
  loginThrottle: {
    /** Consecutive failures per client id or account before it is refused for the window. */
    maxFailures: number;
    /** Failures per client address within the window (not reset by a success). */
    maxFailuresPerAddress: number;
    windowSeconds: number;
  };
  /** The processing worker (src/jobs/worker.ts). */
  jobs: {
    /** Jobs one process runs at once (RDP_PROCESSING_SLOTS). */
    slots: number;
    /** A running job without a heartbeat for this long is failed by the watchdog. */
    heartbeatTimeoutSeconds: number;
    /** How often a worker asks the store for queued jobs. */
    pollIntervalMs: number;
    /** The external reconstruction processor for video inputs (RDP_RECONSTRUCTION_COMMAND); none: such jobs fail with that reason. */
    reconstructionCommand: string | undefined;
  };
  mail: MailConfig;
  /** Webhook endpoints and their delivery (docs/webhooks.md). */
  webhooks: {
    /** RDP_WEBHOOK_ALLOW_PRIVATE=1: http and private or loopback addresses allowed (development and tests only). */
    allowPrivate: boolean;
    /** Deliveries one worker process sends at once (RDP_WEBHOOK_CONCURRENCY). */
    concurrency: number;
    /** How often the worker looks for due deliveries (RDP_WEBHOOK_POLL_INTERVAL_MS). */
    pollIntervalMs: number;
    /** One attempt's limit, address check and connection included (RDP_WEBHOOK_TIMEOUT_MS). */
    timeoutMs: number;
  };
  /** RDP_PLUGINS_FILE: the viewer extensions installed in the deployment (GET /v1/plugins); unset: none. */
  plugins: readonly PluginConfig[];
}

/** Outgoing mail (invitations). Without an SMTP server, mail is kept in the store's outbox. */
export interface MailConfig {
  /** smtp:// or smtps:// (RDP_SMTP_URL); unset: the outbox at {auth_url}/outbox. */
  smtpUrl: string | undefined;
  /** The From header (RDP_MAIL_FROM). */
  from: string;
  /** Each wait on the SMTP server: connecting, its greeting, any silence (RDP_SMTP_TIMEOUT_MS). */
  timeoutMs: number;
}

/** Where upload and derivative bytes live (ports/blob-store.ts). */
export interface BlobsConfig {
  store: 'filesystem' | 's3';
  /** Uploads above this size are multipart, in parts of this size (S3's minimum part is 5 MiB). */
  partSizeBytes: number;
  /**
   * The key that signs the embedded endpoint's addresses (RDP_BLOB_SIGNING_KEY, base64, at least
   * 32 bytes). Unset: the key the deployment generated once and keeps in the global store, so
   * every copy and every restart signs alike.
   */
  signingKey: Buffer | undefined;
  s3: S3Config | undefined;
}

export interface S3Config {
  /** Unset: AWS's own endpoint for the region. */
  endpoint: string | undefined;
  region: string;
  bucket: string;
  /** Unset (both): the AWS SDK's default credential chain. */
  credentials: { accessKeyId: string; secretAccessKey: string } | undefined;
  /** Bucket in the path (most S3-compatible servers) instead of the host name. */
  forcePathStyle: boolean;
}

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

function url(name: string, raw: string): string {
  try {
    const parsed = new URL(raw);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error();
  } catch {
    throw new ConfigError(`${name} must be an http(s) URL, got "${raw}"`);
  }
  return raw.replace(/\/+$/, '');
}

function flag(env: Env, name: string): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '' || raw === '0' || raw === 'false') return false;
  if (raw === '1' || raw === 'true') return true;
  throw new ConfigError(`${name} must be 1, 0, true or false, got "${raw}"`);
}

/** true, false, a hop count or a list of trusted proxy addresses, as Fastify's trustProxy takes them. */
function trustProxy(raw: string | undefined): boolean | number | string {
  if (raw === undefined || raw === '' || raw === '0' || raw === 'false') return false;
  if (raw === 'true') return true;
  if (/^\d{1,2}$/.test(raw)) return Number(raw); // hops: the address that many proxies back
  if (!/^[0-9a-fA-F.:/,\s]+$/.test(raw)) throw new ConfigError(`RDP_TRUST_PROXY must be true, false or addresses, got "${raw}"`);
  return raw;
}

function blobs(env: Env): BlobsConfig {
  const store = env.RDP_BLOB_STORE || 'filesystem';
  if (store !== 'filesystem' && store !== 's3') {
    throw new ConfigError(`RDP_BLOB_STORE must be filesystem or s3, got "${store}"`);
  }
  const MIB = 1024 * 1024;
  const partSizeBytes = integer(env, 'RDP_UPLOAD_PART_SIZE_BYTES', 64 * MIB, 5 * MIB, 5 * 1024 * MIB);

  let signingKey: Buffer | undefined;
  const rawKey = env.RDP_BLOB_SIGNING_KEY;
  if (rawKey) {
    signingKey = /^[A-Za-z0-9+/_-]+={0,2}$/.test(rawKey) ? Buffer.from(rawKey, 'base64') : undefined;
    if (!signingKey || signingKey.length < 32) {
      throw new ConfigError('RDP_BLOB_SIGNING_KEY must be base64 of at least 32 bytes (e.g. openssl rand -base64 32)');
    }
  }

  let s3: S3Config | undefined;
  if (store === 's3') {
    const bucket = env.RDP_S3_BUCKET;
    if (!bucket || !/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) {
      throw new ConfigError(
        `RDP_S3_BUCKET must name an S3 bucket (3 to 63 lower-case letters, digits, . and -), got "${bucket ?? ''}"`,
      );
    }
    const region = env.RDP_S3_REGION || 'us-east-1';
    if (!/^[a-z0-9-]{1,40}$/.test(region)) throw new ConfigError(`RDP_S3_REGION must be a region name, got "${region}"`);
    const accessKeyId = env.RDP_S3_ACCESS_KEY_ID || undefined;
    const secretAccessKey = env.RDP_S3_SECRET_ACCESS_KEY || undefined;
    if (Boolean(accessKeyId) !== Boolean(secretAccessKey)) {
      throw new ConfigError('RDP_S3_ACCESS_KEY_ID and RDP_S3_SECRET_ACCESS_KEY are set together or not at all');
    }
    s3 = {
      endpoint: env.RDP_S3_ENDPOINT ? url('RDP_S3_ENDPOINT', env.RDP_S3_ENDPOINT) : undefined,
      region,
      bucket,
      credentials: accessKeyId && secretAccessKey ? { accessKeyId, secretAccessKey } : undefined,
      forcePathStyle: flag(env, 'RDP_S3_FORCE_PATH_STYLE'),
    };
  }
  return { store, partSizeBytes, signingKey, s3 };
}

/** A plain address or a display name with the address in angle brackets, on one line. */
const MAIL_FROM = /^(?:[^<>\r\n]*<[^\s<>@]+@[^\s<>@]+>|[^\s<>@]+@[^\s<>@]+)$/;

function mail(env: Env): MailConfig {
  const smtpUrl = env.RDP_SMTP_URL || undefined;
  if (smtpUrl !== undefined) {
    let valid = false;
    try {
      const parsed = new URL(smtpUrl);
      valid = (parsed.protocol === 'smtp:' || parsed.protocol === 'smtps:') && parsed.hostname !== '';
    } catch {}
    // The URL may hold a password: the message does not repeat it.
    if (!valid) throw new ConfigError('RDP_SMTP_URL must be an smtp:// or smtps:// URL with a host');
  }
  const from = env.RDP_MAIL_FROM || 'Reality Data Platform <no-reply@localhost>';
  if (!MAIL_FROM.test(from)) {
    throw new ConfigError(`RDP_MAIL_FROM must be an address or "Name <address>", got "${from}"`);
  }
  return { smtpUrl, from, timeoutMs: integer(env, 'RDP_SMTP_TIMEOUT_MS', 10_000, 100, 120_000) };
}

function list(env: Env, name: string): string[] | undefined {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return undefined;
  return raw
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

function roles(env: Env): ReadonlySet<Role> {
  const named = list(env, 'RDP_ROLES') ?? [...ROLES];
  for (const role of named) {
    if (!(ROLES as readonly string[]).includes(role)) {
      throw new ConfigError(`RDP_ROLES must list roles of ${ROLES.join(', ')}, got "${role}"`);
    }
  }
  return new Set(named as Role[]);
}

function regions(env: Env): Region[] {
  const named = list(env, 'RDP_REGIONS') ?? [...REGIONS];
  for (const region of named) {
    if (!(REGIONS as readonly string[]).includes(region)) {
      throw new ConfigError(`RDP_REGIONS must list regions of ${REGIONS.join(', ')}, got "${region}"`);
    }
  }
  return REGIONS.filter((region) => named.includes(region));
}

function corsOrigins(env: Env): string[] {
  const named = list(env, 'RDP_CORS_ORIGINS') ?? [];
  for (const origin of named) {
    if (origin === '*') continue;
    let valid = false;
    try {
      const parsed = new URL(origin);
      valid = (parsed.protocol === 'http:' || parsed.protocol === 'https:') && parsed.origin === origin.replace(/\/+$/, '');
    } catch {}
    if (!valid) throw new ConfigError(`RDP_CORS_ORIGINS must list origins like https://app.example.com or *, got "${origin}"`);
  }
  return named.map((origin) => origin.replace(/\/+$/, ''));
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export function loadConfig(env: Env = process.env): Config {
  const host = env.HOST || '127.0.0.1';
  const port = integer(env, 'PORT', 8080, 0, 65535);
  const publicUrl = url('RDP_PUBLIC_URL', env.RDP_PUBLIC_URL || `http://${host}:${port}`);

  const databaseUrl = env.RDP_DATABASE_URL || undefined;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError(`RDP_DATABASE_URL must be a postgres:// URL, got "${databaseUrl}"`);
  }
  const databaseSchemaPrefix = env.RDP_DATABASE_SCHEMA_PREFIX || 'rdp';
  if (!/^[a-z_][a-z0-9_]{0,40}$/.test(databaseSchemaPrefix)) {
    throw new ConfigError('RDP_DATABASE_SCHEMA_PREFIX must be lower-case letters, digits and _');
  }

  const regionUrls = {} as Record<Region, string>;
  for (const region of REGIONS) {
    const name = `RDP_REGION_URL_${region.toUpperCase()}`;
    regionUrls[region] = url(name, env[name] || `${publicUrl}/${region}/reality`);
  }

  const logLevel = env.RDP_LOG_LEVEL || 'info';
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(`RDP_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${logLevel}"`);
  }

  const redisUrl = env.RDP_REDIS_URL || undefined;
  if (redisUrl && !/^rediss?:\/\//.test(redisUrl)) {
    throw new ConfigError(`RDP_REDIS_URL must be a redis:// or rediss:// URL, got "${redisUrl}"`);
  }
  const redisKeyPrefix = env.RDP_REDIS_KEY_PREFIX || 'rdp';
  if (!/^[A-Za-z0-9_.:-]{1,64}$/.test(redisKeyPrefix)) {
    throw new ConfigError('RDP_REDIS_KEY_PREFIX must be 1 to 64 letters, digits and _ . : -');
  }

  return {
    roles: roles(env),
    regions: regions(env),
    host,
    port,
    publicUrl,
    dataDir: path.resolve(env.RDP_DATA_DIR || 'data'),
    databaseUrl,
    databaseSchemaPrefix,
    databasePoolSize: integer(env, 'RDP_DATABASE_POOL_SIZE', 10, 1, 1000),
    shutdownGraceSeconds: integer(env, 'RDP_SHUTDOWN_GRACE_SECONDS', 30, 0, 3600),
    shutdownDelaySeconds: integer(env, 'RDP_SHUTDOWN_DELAY_SECONDS', 0, 0, 3600),
    metricsToken: env.RDP_METRICS_TOKEN || undefined,
    corsOrigins: corsOrigins(env),
    regionUrls,
    authJwksUrl: env.RDP_AUTH_JWKS_URL ? url('RDP_AUTH_JWKS_URL', env.RDP_AUTH_JWKS_URL) : undefined,
    accessTokenTtlSeconds: integer(env, 'RDP_ACCESS_TOKEN_TTL_SECONDS', 3600, 10, 86_400),
    refreshTokenTtlSeconds: integer(env, 'RDP_REFRESH_TOKEN_TTL_SECONDS', 30 * 86_400, 60, 365 * 86_400),
    refreshReuseGraceSeconds: integer(env, 'RDP_REFRESH_REUSE_GRACE_SECONDS', 0, 0, 300),
    sessionTtlSeconds: integer(env, 'RDP_SESSION_TTL_SECONDS', 8 * 3600, 60, 30 * 86_400),
    maxHierarchyDepth: integer(env, 'RDP_MAX_HIERARCHY_DEPTH', 12, 3, 64),
    trashRetentionDays: integer(env, 'RDP_TRASH_RETENTION_DAYS', 30, 1, 3650),
    trashPurgeIntervalSeconds: integer(env, 'RDP_TRASH_PURGE_INTERVAL_SECONDS', 3600, 1, 86_400),
    auditRetentionDays: integer(env, 'RDP_AUDIT_RETENTION_DAYS', 365, 1, 36_500),
    jsonBodyLimitBytes: integer(env, 'RDP_JSON_BODY_LIMIT_BYTES', 64 * 1024, 1024, 16 * 1024 * 1024),
    thumbnailMaxBytes: integer(env, 'RDP_THUMBNAIL_MAX_BYTES', 5 * 1024 * 1024, 1024, 64 * 1024 * 1024),
    meshMaxInputBytes: integer(env, 'RDP_MESH_MAX_INPUT_BYTES', MESH_MAX_BYTES, 1024, MESH_MAX_BYTES),
    uploadExpirySeconds: integer(env, 'RDP_UPLOAD_EXPIRY_SECONDS', 86_400, 60, 7 * 86_400),
    viewerAssetsDir: path.resolve(env.RDP_VIEWER_ASSETS_DIR || path.join('dist', 'viewer')),
    consoleAssetsDir: path.resolve(env.RDP_CONSOLE_ASSETS_DIR || path.join('dist', 'console')),
    logLevel,
    trustProxy: trustProxy(env.RDP_TRUST_PROXY),
    redisUrl,
    redisKeyPrefix,
    rateLimit: {
      disabled: flag(env, 'RDP_RATE_LIMIT_DISABLED'),
      bucket: integer(env, 'RDP_RATE_LIMIT_BUCKET', 600, 1, 1_000_000_000),
      refillPerSecond: integer(env, 'RDP_RATE_LIMIT_REFILL_PER_SECOND', 20, 1, 1_000_000_000),
      tiles: {
        bucket: integer(env, 'RDP_TILE_RATE_LIMIT_BUCKET', 3000, 1, 1_000_000_000),
        refillPerSecond: integer(env, 'RDP_TILE_RATE_LIMIT_REFILL_PER_SECOND', 300, 1, 1_000_000_000),
      },
    },
    blobs: blobs(env),
    loginThrottle: {
      maxFailures: integer(env, 'RDP_LOGIN_MAX_FAILURES', 10, 1, 1_000_000),
      maxFailuresPerAddress: integer(env, 'RDP_LOGIN_MAX_FAILURES_PER_ADDRESS', 100, 1, 1_000_000),
      windowSeconds: integer(env, 'RDP_LOGIN_FAILURE_WINDOW_SECONDS', 900, 1, 86_400),
    },
    jobs: {
      slots: integer(env, 'RDP_PROCESSING_SLOTS', 2, 1, 256),
      heartbeatTimeoutSeconds: integer(env, 'RDP_JOB_HEARTBEAT_TIMEOUT_SECONDS', 120, 1, 86_400),
      pollIntervalMs: integer(env, 'RDP_JOB_POLL_INTERVAL_MS', 500, 10, 60_000),
      reconstructionCommand: env.RDP_RECONSTRUCTION_COMMAND || undefined,
    },
    mail: mail(env),
    webhooks: {
      allowPrivate: flag(env, 'RDP_WEBHOOK_ALLOW_PRIVATE'),
      concurrency: integer(env, 'RDP_WEBHOOK_CONCURRENCY', 16, 1, 1024),
      pollIntervalMs: integer(env, 'RDP_WEBHOOK_POLL_INTERVAL_MS', 250, 10, 60_000),
      timeoutMs: integer(env, 'RDP_WEBHOOK_TIMEOUT_MS', 15_000, 100, 60_000),
    },
    plugins: env.RDP_PLUGINS_FILE ? readPluginsFile(env.RDP_PLUGINS_FILE, (message) => new ConfigError(message)) : [],
  };
}
