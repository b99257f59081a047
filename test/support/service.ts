import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTierTable, type TierOverrides } from '../../adapters/billing/tiers.ts';
import { microblogClientOptionsFromEnv } from '../../adapters/microblog/microblog-config.ts';
import { systemLookup, type DestinationPolicy } from '../../adapters/webhooks/destination.ts';
import { startService, type RunningService, type StartOptions } from '../../service/start.ts';
import { createTestDatabase, type TestDatabase } from './database.ts';

/** The operator token of every test service, and of the child processes started beside one. */
export const TEST_OPERATOR_TOKEN = 'test-operator-token-0123456789abcdef';

export interface HttpResult<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export interface TestService {
  service: RunningService;
  url: string;
  db: TestDatabase;
  /** The service's data folder (generated secrets such as the webhook encryption key live here). */
  dataDir: string;
  /** The SVC_TIERS overrides it runs with: every instance on its database must run the same ones. */
  tiers: TierOverrides;
  /** A new workspace with a key holding `scopes` (default: every read scope). */
  newKey(options?: { scopes?: string[]; label?: 'live' | 'test'; expiresAt?: Date | null; workspaceId?: string }): Promise<{ key: string; keyId: string; workspaceId: string }>;
  request<T = any>(method: string, path: string, options?: { key?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> }): Promise<HttpResult<T>>;
  graphql<T = any>(query: string, variables?: Record<string, unknown>, key?: string): Promise<HttpResult<T>>;
  operator<T = any>(method: string, path: string, body?: unknown): Promise<HttpResult<T>>;
  /** Stops the service and starts it again on the same port, database and data folder. */
  restart(): Promise<void>;
  close(): Promise<void>;
}

/** Starts the whole service on a free loopback port with a database of the test file's own. */
export async function startTestService(
  options: StartOptions & {
    env?: Record<string, string>;
    databaseUrlThrough?: (url: string) => string;
    tiers?: TierOverrides;
    /** The simulated platforms keep publishing, as on the embedded default. */
    simPublish?: boolean;
    /** Where webhooks may deliver (default: http allowed, 127.0.0.1 allowed). */
    webhookDestinations?: Partial<DestinationPolicy>;
    /** GraphiQL on `GET /graphql` (default on, as on the embedded default; production turns it off). */
    graphiql?: boolean;
    /** SVC_PUBLIC_URL: the issuer the service names instead of its own listener's URL. */
    publicUrl?: string;
    /** A second instance on another service's PostgreSQL database (it stays owned by that service), with its tiers unless given. */
    shareDatabaseWith?: TestService;
  } = {},
): Promise<TestService> {
  const shared = options.shareDatabaseWith?.db;
  if (shared && !shared.databaseUrl) throw new Error('only a PostgreSQL database can be shared by two instances');
  const db: TestDatabase = shared ? { ...shared, dataDir: undefined, drop: async () => {} } : await createTestDatabase();
  // A second instance shares the first one's folder too: its generated keys (webhook secrets) must be the same.
  const dataDir = db.dataDir ?? options.shareDatabaseWith?.dataDir ?? (await mkdtemp(join(tmpdir(), 'svc-data-')));
  const tiers = options.tiers ?? options.shareDatabaseWith?.tiers ?? {};
  const boot = (port: number) => startService(
    {
      port,
      host: '127.0.0.1',
      operatorPort: 0,
      operatorHost: '127.0.0.1',
      dataDir,
      databaseUrl: db.databaseUrl && options.databaseUrlThrough ? options.databaseUrlThrough(db.databaseUrl) : db.databaseUrl,
      operatorToken: TEST_OPERATOR_TOKEN,
      version: 'test0000-20260101T000000Z',
      demo: false,
      graphiql: options.graphiql ?? true,
      tiers: createTierTable(tiers),
      billing: true,
      // Tests publish what they need themselves, unless one asks for the demo's live content.
      simPublish: options.simPublish ?? false,
      mcpAllowedOrigins: new Set(['https://allowed.example']),
      // Webhook receivers in tests listen on loopback, which the operator allows here explicitly.
      webhookDestinations: { allowHttp: true, allowHosts: new Set(['127.0.0.1']), lookup: systemLookup, ...options.webhookDestinations },
      forumUpstream: options.env?.FORUM_UPSTREAM_URL ? { baseUrl: options.env.FORUM_UPSTREAM_URL, headers: {} } : undefined,
      microblogUpstream: microblogClientOptionsFromEnv(options.env ?? {}) ?? undefined,
      publicUrl: options.publicUrl,
    },
    options,
  );
  let running = await boot(0);
  const url = running.url;

  const request = async (method: string, path: string, opts: { key?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> } = {}) => {
    const headers: Record<string, string> = { ...(opts.headers ?? {}) };
    if (opts.key) headers.authorization = `Bearer ${opts.key}`;
    let body: string | undefined = opts.rawBody;
    if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['content-type'] ??= 'application/json';
    }
    // A path on this service, or a whole URL (the operator API listens apart).
    const response = await fetch(/^https?:/.test(path) ? path : `${url}${path}`, { method, headers, body });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // Non-JSON bodies (GraphiQL HTML) are returned as text.
    }
    return { status: response.status, headers: response.headers, body: parsed as any };
  };

  return {
    get service() {
      return running;
    },
    url,
    db,
    dataDir,
    tiers,
    async newKey(opts = {}) {
      const workspaceId = opts.workspaceId ?? (await running.identity.createWorkspace({ name: 'Test workspace' })).id;
      const created = await running.identity.createApiKey({
        workspaceId,
        label: opts.label ?? 'live',
        scopes: opts.scopes ?? ['read:social', 'usage:read'],
        expiresAt: opts.expiresAt === undefined ? null : opts.expiresAt,
      });
      return { key: created.key, keyId: created.keyId, workspaceId };
    },
    request,
    graphql: (query, variables, key) => request('POST', '/graphql', { key, body: { query, variables } }),
    operator: (method, path, body) => request(method, `${running.operatorUrl}${path}`, { body, headers: { authorization: `Bearer ${TEST_OPERATOR_TOKEN}` } }),
    async restart() {
      await running.close();
      // The same port, so the URL (the OAuth issuer, the tokens' audience) stays the same.
      running = await boot(Number(new URL(url).port));
    },
    async close() {
      await running.close();
      await db.drop();
      if (!db.dataDir && !options.shareDatabaseWith) await rm(dataDir, { recursive: true, force: true });
    },
  };
}
