import { resolve } from 'node:path';
import { createTierTable, type TierOverrides, type TierTable } from '../adapters/billing/tiers.ts';
import type { MicroblogClientOptions } from '../adapters/microblog/microblog-client.ts';
import { microblogClientOptionsFromEnv } from '../adapters/microblog/microblog-config.ts';
import { destinationPolicyFromEnv, type DestinationPolicy } from '../adapters/webhooks/destination.ts';

export interface ServiceConfig {
  port: number;
  host: string;
  /** The operator API's own listener: `SVC_OPERATOR_PORT` (default 8081), `SVC_OPERATOR_HOST` (default loopback only). */
  operatorPort: number;
  operatorHost: string;
  /** Embedded database, lock file, operator token and demo key live here. */
  dataDir: string;
  /** A real PostgreSQL server; absent → embedded PGlite under `dataDir`. */
  databaseUrl?: string;
  /** A real forum upstream: its URL and optional request headers (`FORUM_USER_AGENT`, `FORUM_BEARER_TOKEN`). */
  forumUpstream?: { baseUrl: string; headers: Record<string, string> };
  /** A real microblog upstream (URL, session credentials, query ids); absent → the in-process simulated platform. */
  microblogUpstream?: MicroblogClientOptions;
  operatorToken?: string;
  /** Build string `<build_hash>-<timestamp>`; derived from git when not given. */
  version?: string;
  /** Create the demo workspace and key on first start. */
  demo: boolean;
  /**
   * GraphiQL at `GET /graphql`: on the embedded default, off in production. Its page loads its scripts from unpkg.com
   * with no integrity check, and people paste API keys into it.
   */
  graphiql: boolean;
  /** `false` only under `SVC_BILLING=off`: the benchmark's unbilled baseline. Never in production. */
  billing: boolean;
  /** Tier ceilings: the documented defaults with `SVC_TIERS` (JSON, per-tier partial overrides) applied. */
  tiers: TierTable;
  /** `REDIS_URL`: rate-limit windows are shared through Redis instead of the database (docs/hot-path.md). */
  redisUrl?: string;
  /** `MONGODB_URL`: the job store lives in MongoDB; absent → the service's own database. */
  mongodbUrl?: string;
  /** `SVC_WEBHOOK_KEYS`: keys that encrypt webhook secrets at rest; absent → one generated into `dataDir`. */
  webhookKeys?: string;
  /** `SVC_CURSOR_KEYS`: keys that sign cursors; absent → one generated into `dataDir`. */
  cursorKeys?: string;
  /** `SVC_OAUTH_KEYS`: keys the MCP sign-in's authorization server signs tokens and cookies with; absent → one generated into `dataDir`. */
  oauthKeys?: string;
  /** Where webhooks may deliver: `SVC_WEBHOOK_ALLOW_HTTP`, `SVC_WEBHOOK_ALLOW_HOSTS`. */
  webhookDestinations: DestinationPolicy;
  /** `SVC_MCP_ALLOWED_ORIGINS`: origins (`https://app.example`) whose pages may call `/mcp`; requests without Origin are served. */
  mcpAllowedOrigins: ReadonlySet<string>;
  /** `SVC_SIM_PUBLISH` (default on): the in-process simulated platforms keep publishing new content. */
  simPublish?: boolean;
  /**
   * `SVC_PUBLIC_URL`: the base URL clients reach the service at (`https://api.example.com`): the OAuth issuer, and
   * `{publicUrl}/mcp` the audience of MCP access tokens. Required in production (https unless on loopback); absent on
   * the embedded default → the listener's own `http://host:port`.
   */
  publicUrl?: string;
}

/** Hosts only this machine reaches: a plain http issuer there is no one else's to intercept. */
const LOOPBACK_HOST = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/;

function publicUrl(value: string | undefined, production: boolean): string | undefined {
  if (!value) return undefined;
  const url = URL.parse(value);
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:') || url.search || url.hash || (url.pathname !== '/' && url.pathname !== '')) {
    throw new Error(`SVC_PUBLIC_URL must be a bare http(s) origin like https://api.example.com, got '${value}'`);
  }
  // MCP clients trust tokens from this issuer, and its sign-in cookies ride on it: in production it is https.
  if (production && url.protocol === 'http:' && !LOOPBACK_HOST.test(url.hostname)) {
    throw new Error(`SVC_PUBLIC_URL must be https in production (it is the OAuth issuer MCP clients trust); plain http only on a loopback host, got '${value}'`);
  }
  return url.origin;
}

function tiers(value: string | undefined): TierTable {
  if (!value) return createTierTable();
  let overrides: TierOverrides;
  try {
    overrides = JSON.parse(value) as TierOverrides;
  } catch (error) {
    throw new Error(`SVC_TIERS must be JSON like {"t1":{"rateLimitPerMinute":600}}: ${(error as Error).message}`);
  }
  return createTierTable(overrides);
}

function port(value: string | undefined, variable: string, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0 || parsed > 65_535) throw new Error(`${variable} must be an integer 0-65535, got '${value}'`);
  return parsed;
}

/** Production: a real database (`DATABASE_URL`) or `NODE_ENV=production`. The embedded default is the demo. */
export function isProduction(env: NodeJS.ProcessEnv): boolean {
  return Boolean(env.DATABASE_URL) || env.NODE_ENV === 'production';
}

const REQUIRED_IN_PRODUCTION = ['SVC_OPERATOR_TOKEN', 'SVC_CURSOR_KEYS', 'SVC_WEBHOOK_KEYS', 'SVC_OAUTH_KEYS', 'SVC_PUBLIC_URL'] as const;

/**
 * What production refuses to start without: the operator token and every signing and encryption key (a generated
 * one would differ between instances and vanish with a container), the public URL (the OAuth issuer: the
 * listener's own address is not what clients reach behind a proxy), and real upstreams unless the simulated
 * platforms are chosen on purpose (`SVC_SIMULATED_PLATFORMS=on`).
 */
function checkProduction(env: NodeJS.ProcessEnv): void {
  const missing: string[] = REQUIRED_IN_PRODUCTION.filter((variable) => !env[variable]);
  if (env.SVC_SIMULATED_PLATFORMS !== 'on') {
    if (!env.FORUM_UPSTREAM_URL) missing.push('FORUM_UPSTREAM_URL');
    if (!env.MICROBLOG_UPSTREAM_URL) missing.push('MICROBLOG_UPSTREAM_URL');
  }
  if (missing.length) {
    throw new Error(
      `Production mode (DATABASE_URL or NODE_ENV=production) needs ${missing.join(', ')}. ` +
        'Set them (keys are kid:base64 with 32-byte keys; SVC_PUBLIC_URL is the https origin clients reach the service at; the upstreams are the platforms’ URLs, or SVC_SIMULATED_PLATFORMS=on to use the simulated ones).',
    );
  }
}

/**
 * Configuration from the environment. On the embedded default every variable is optional; in production the
 * secrets and upstreams must be given, and nothing demo-like happens unless asked.
 */
export function configFromEnv(env: NodeJS.ProcessEnv = process.env): ServiceConfig {
  const production = isProduction(env);
  if (production) checkProduction(env);
  return {
    port: port(env.PORT, 'PORT', 8080),
    host: env.HOST ?? '0.0.0.0',
    // On a port of its own; 0 follows PORT=0 (tests and benchmarks take any free port).
    operatorPort: port(env.SVC_OPERATOR_PORT, 'SVC_OPERATOR_PORT', env.PORT === '0' ? 0 : 8081),
    operatorHost: env.SVC_OPERATOR_HOST ?? '127.0.0.1',
    dataDir: resolve(env.SVC_DATA_DIR ?? './data'),
    databaseUrl: env.DATABASE_URL || undefined,
    forumUpstream: env.FORUM_UPSTREAM_URL
      ? {
          baseUrl: env.FORUM_UPSTREAM_URL,
          headers: {
            ...(env.FORUM_USER_AGENT ? { 'user-agent': env.FORUM_USER_AGENT } : {}),
            ...(env.FORUM_BEARER_TOKEN ? { authorization: `Bearer ${env.FORUM_BEARER_TOKEN}` } : {}),
          },
        }
      : undefined,
    microblogUpstream: microblogClientOptionsFromEnv(env) ?? undefined,
    operatorToken: env.SVC_OPERATOR_TOKEN || undefined,
    version: env.SVC_BUILD_VERSION || undefined,
    // The demo workspace and key exist on the embedded default; in production only when asked for.
    demo: production ? env.SVC_DEMO === 'true' : env.SVC_DEMO !== 'false',
    graphiql: !production,
    tiers: tiers(env.SVC_TIERS),
    billing: env.SVC_BILLING !== 'off',
    mongodbUrl: env.MONGODB_URL || undefined,
    redisUrl: env.REDIS_URL || undefined,
    webhookKeys: env.SVC_WEBHOOK_KEYS || undefined,
    cursorKeys: env.SVC_CURSOR_KEYS || undefined,
    oauthKeys: env.SVC_OAUTH_KEYS || undefined,
    webhookDestinations: destinationPolicyFromEnv(env),
    simPublish: env.SVC_SIM_PUBLISH !== 'off',
    mcpAllowedOrigins: new Set((env.SVC_MCP_ALLOWED_ORIGINS ?? '').split(',').map((origin) => origin.trim()).filter(Boolean)),
    publicUrl: publicUrl(env.SVC_PUBLIC_URL, production),
  };
}
