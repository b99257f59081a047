import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ensurePrivateDataDir } from '../adapters/db/data-dir-mode.ts';
import { sweepRetention } from '../adapters/db/retention.ts';
import { createOperatorAudit } from '../adapters/db/operator-audit.ts';
import { sqlDbFromOrm } from '../adapters/db/sql.ts';
import { createCreditsService, type CreditsService } from '../adapters/billing/credits-service.ts';
import { createCreditLeases } from '../adapters/billing/credit-leases.ts';
import { withLeases } from '../adapters/billing/leased-credits.ts';
import { createWeightedRateLimiter } from '../adapters/billing/rate-limiter.ts';
import { tierTableFingerprint, type TierTable } from '../adapters/billing/tiers.ts';
import { acquireDataDirLock } from '../adapters/db/data-dir-lock.ts';
import { loadOperatorToken, operatorTokenMatches } from '../adapters/db/operator-token.ts';
import { createIdempotencyStore } from '../adapters/db/idempotency-store.ts';
import { loadKeyring } from '../adapters/db/keyring.ts';
import { logger } from '../adapters/logging/logger.ts';
import { runShutdown, type Cleanup } from './shutdown.ts';
import { embeddedDatabase, initOrm, sharedPing, type Orm } from '../adapters/db/orm.ts';
import { createPagingStateStore } from '../adapters/db/paging-state-store.ts';
import { createUsageCharges } from '../adapters/usage/usage-charges.ts';
import { createUsageChargeWriter } from '../adapters/usage/usage-charge-writer.ts';
import { createIdentityStore, type AuthenticatedKey, type IdentityStore } from '../adapters/identity/identity-store.ts';
import { createPersonStore, SESSION_TTL_MS, type PersonStore } from '../adapters/people/person-store.ts';
import type { InstanceSettings } from '../adapters/identity/instance-presence.ts';
import { KeyCache } from '../adapters/identity/key-cache.ts';
import { keyCachesFollowing, listenToPglite, listenToPostgres } from '../adapters/identity/key-change-feed.ts';
import { createMonitorRunner } from '../adapters/monitors/monitor-runner.ts';
import { createMonitorService, type MonitorService } from '../adapters/monitors/monitor-service.ts';
import { createScheduleTurns } from '../adapters/monitors/schedule-turns.ts';
import { createDeliveryPolicy } from '../adapters/webhooks/delivery-policy.ts';
import { createDeliveryWorker } from '../adapters/webhooks/delivery-worker.ts';
import { checkDestination, systemLookup, type DestinationPolicy } from '../adapters/webhooks/destination.ts';
import { destinationAgent } from '../adapters/webhooks/destination-agent.ts';
import { fetch as undiciFetch, type RequestInit as UndiciRequestInit } from 'undici';
import { createEventSender } from '../adapters/webhooks/send-event.ts';
import { newEventId } from '../adapters/webhooks/standard-webhooks.ts';
import { createWebhookService } from '../adapters/webhooks/webhook-service.ts';
import { checkSealingKeys, createWebhookSecrets, loadEncryptionKeys, resealSecrets } from '../adapters/webhooks/webhook-secrets.ts';
import { createJobs, type Jobs } from '../jobs/jobs.ts';
import { JOB_STORE_FAILURE_MESSAGES, openJobStore, type JobStore } from '../jobs/job-store.ts';
import { createDashboard } from '../dashboard/dashboard.ts';
import { createMcpBridge } from '../mcp-bridge/mcp-handler.ts';
import { createMcpOAuth, type McpOAuth } from '../mcp-bridge/mcp-oauth.ts';
import { createOpenStreams } from '../mcp-bridge/open-streams.ts';
import { createConnectionStore, type ConnectionStore, type VerifiedAccessToken } from '../adapters/oauth/connection-store.ts';
import { oauthModelAdapterFactory, sweepExpiredOAuthModels } from '../adapters/oauth/oauth-model-adapter.ts';
import { loadOAuthServerKeys } from '../adapters/oauth/server-keys.ts';
import { createAuthorizationLimit, createRegistrationLimit } from '../adapters/oauth/registration-limit.ts';
import { createAuthorizationServer, endProviderSession } from '../oauth-server/authorization-server.ts';
import type Provider from 'oidc-provider';
import { createInteractionHandler } from '../oauth-server/interaction-handler.ts';
import { createOAuthRoutes, type OAuthRoutes } from './oauth-routes.ts';
import { dashboardApprovalPeople } from './approval-people.ts';
import { buildOpenApi } from '../rest-bridge/openapi.ts';
import { createRestHandler } from '../rest-bridge/rest-handler.ts';
import { OPERATIONS, operationByField } from '../schema/catalogue/index.ts';
import { SUBSCRIPTION_STREAMS } from '../schema/catalogue/mcp-streams.ts';
import { MAX_WAITING_TESTS, REDELIVERY_WINDOW } from '../schema/catalogue/webhooks.ts';
import { createOperationExecutor } from '../schema/execute-operation.ts';
import type { ServiceDeps } from '../core/service-deps.ts';
import { createBillingGate } from '../schema/pipeline/billing-gate.ts';
import { buildVersion } from './build-version.ts';
import type { ServiceConfig } from './config.ts';
import { ensureDemo, type Demo } from './demo-workspace.ts';
import { createGraphQLServer } from '../schema/pipeline/graphql-server.ts';
import { operationPolicy } from '../schema/pipeline/use-operation-policy.ts';
import { withIntrospectionAnswers } from '../schema/pipeline/introspection-answers.ts';
import { createKeyFailures } from '../adapters/identity/key-failures.ts';
import { createJsonPostHandler } from '../schema/pipeline/graphql-json-post.ts';
import { createHttpServer, createOperatorServer } from './http-server.ts';
import { createCorsPolicy } from './cors.ts';
import { billingOperatorRoutes } from '../operator-bridge/billing-routes.ts';
import { createOperatorApi, identityOperatorRoutes } from '../operator-bridge/operator-api.ts';
import { startPlatforms, type Platforms } from './platforms.ts';
import { createRateGate } from '../schema/pipeline/rate-gate.ts';
import { unbilledGate } from '../schema/pipeline/unbilled-gate.ts';

export const SERVICE_NAME = 'conversation-data-service';

export interface RunningService {
  url: string;
  /** The operator API, on its own listener. */
  operatorUrl: string;
  version: string;
  /** The demo key and the demo person's credentials (embedded default, or SVC_DEMO=true). */
  demo?: Demo;
  operatorToken: string;
  orm: Orm;
  identity: IdentityStore;
  people: PersonStore;
  credits: CreditsService;
  platforms: Platforms;
  monitors: MonitorService;
  connections: ConnectionStore;
  jobs: Jobs;
  jobStore: JobStore;
  close(): Promise<void>;
}

export interface StartOptions {
  /** Injectable clock (tests of expiry and month rollover). */
  now?: () => Date;
  /** Job store tuning for tests: polling interval and lock lifetime. */
  jobs?: { processEvery?: number; lockLifetimeMs?: number; deliverySweepMs?: number; autostart?: boolean };
  /** Webhook attempt timeout (tests use a short one). */
  webhookTimeoutMs?: number;
  /** The MCP subscription streams one instance keeps open (tests fill an instance with a few). */
  mcpStreamsPerInstance?: number;
  /** The streams of free-tier workspaces one instance keeps open. */
  mcpFreeTierStreams?: number;
  /** How the authorization server fetches client ID metadata documents (tests trust their own loopback certificate). */
  clientMetadataFetch?: (url: URL | string, init: RequestInit) => Promise<Response>;
  /** Where the default client metadata fetch may connect: nothing but public addresses over https unless a test says. */
  clientMetadataDestinations?: Partial<DestinationPolicy>;
}

/**
 * Client ID metadata documents are fetched only from public addresses, refused before connecting (oidc-provider's own
 * guard looks at the socket once it is connected, which already tells a stranger which internal ports are open). The
 * same filter as webhooks, with nothing allowed: no http, no host exempt. oidc-provider passes its own dispatcher and
 * a 2.5 s signal; the dispatcher is replaced.
 */
function clientMetadataFetch(cleanups: Cleanup[], overrides: Partial<DestinationPolicy> = {}): NonNullable<StartOptions['clientMetadataFetch']> {
  const agent = destinationAgent({ allowHttp: false, allowHosts: new Set(), lookup: systemLookup, ...overrides }, { timeoutMs: 2_500 });
  cleanups.unshift({ step: 'client metadata fetch agent', run: () => agent.close() });
  return (url, init) => undiciFetch(url, { ...(init as UndiciRequestInit), dispatcher: agent }) as unknown as Promise<Response>;
}

/** Where the running service writes its operator API's address, for the operator CLI. */
export const OPERATOR_URL_FILE = 'operator-url';

/** Listens, and closes the listener (and its open connections) first on shutdown. */
async function listen(server: Server, port: number, host: string, cleanups: Cleanup[]): Promise<AddressInfo> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  cleanups.unshift({
    step: `listener on port ${port}`,
    run: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  });
  return server.address() as AddressInfo;
}

/**
 * Every instance on one database must run the same tier table: the rate-limit window is shared, and a ceiling that
 * depended on the instance answering would refuse or admit the same call by chance (docs/billing.md "Tiers").
 */
function tierSettings(tiers: TierTable): InstanceSettings {
  const fingerprint = tierTableFingerprint(tiers);
  return {
    fingerprint,
    refusal: (theirs) =>
      `SVC_TIERS differs from the tier table of an instance already running on this database (its table ${theirs}, this one ${fingerprint}): ` +
      'every instance must run the same SVC_TIERS. Start this one with the running instances\' SVC_TIERS, or stop them first.',
  };
}

/** How long shutdown waits for running jobs before it lets them go (they are picked up again later). */
const DRAIN_MS = 10_000;

/** The composition root: opens the database, builds adapters, the pipeline and the three surfaces, and listens. */
export async function startService(config: ServiceConfig, options: StartOptions = {}): Promise<RunningService> {
  const now = options.now ?? (() => new Date());
  if (!config.billing) logger.warn('SVC_BILLING=off: every call is served free. For benchmarks only.');
  ensurePrivateDataDir(config.dataDir);
  const lock = config.databaseUrl ? undefined : acquireDataDirLock(config.dataDir);
  const cleanups: Cleanup[] = [];
  if (lock) cleanups.push({ step: 'data folder lock', run: () => lock.release() });
  try {
    const orm = await initOrm({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
    cleanups.unshift({ step: 'database', run: () => orm.close(true) });
    const sqlDb = sqlDbFromOrm(orm);
    const credits = createCreditsService({ db: sqlDb, clock: now, tiers: config.tiers });
    const leases = createCreditLeases({ db: sqlDb, credits, clock: now });
    // Runs after the listeners closed: books what this instance charged and hands its leases back.
    cleanups.unshift({ step: 'credit leases', run: () => leases.close() });
    const leasedCredits = withLeases(credits, leases);
    // Off until the change feed listens: a key cached before that could miss its revocation.
    const keyCache = new KeyCache<AuthenticatedKey>({ enabled: false });
    // MCP connections' access tokens, forgotten with their connection (docs/hot-path.md).
    const tokenCache = new KeyCache<VerifiedAccessToken>({ enabled: false });
    const following = keyCachesFollowing(keyCache, tokenCache);
    const mcpStreams = createOpenStreams({
      now,
      maxPerKey: SUBSCRIPTION_STREAMS.maxOpenPerKey,
      maxPerWorkspace: SUBSCRIPTION_STREAMS.maxOpenPerWorkspace,
      maxPerPerson: SUBSCRIPTION_STREAMS.maxOpenPerPerson,
      maxPerInstance: options.mcpStreamsPerInstance ?? SUBSCRIPTION_STREAMS.maxOpenPerInstance,
      maxFreeTier: options.mcpFreeTierStreams ?? SUBSCRIPTION_STREAMS.maxOpenFreeTierPerInstance,
    });
    cleanups.push({ step: 'MCP stream expiry', run: () => mcpStreams.close() });
    // The feed's connection dropping is the first sign the database is away: nothing billed is served from memory.
    // MCP streams end with their key's change, and all of them whenever changes may have been missed.
    const feed = {
      changed: (keyId: string) => (following.changed(keyId), mcpStreams.keyChanged(keyId)),
      lost: () => (following.lost(), leases.suspend(), mcpStreams.endAll()),
      listening: () => (following.listening(), mcpStreams.endAll()),
    };
    const pglite = embeddedDatabase(orm);
    const keyChanges = pglite ? await listenToPglite(pglite, feed) : await listenToPostgres(config.databaseUrl!, feed, { settings: tierSettings(config.tiers) });
    cleanups.unshift({ step: 'key change feed', run: () => keyChanges.close() });
    const identity = createIdentityStore(orm, { keyCache, keyChanges });
    const limiter = await createWeightedRateLimiter({ databaseUrl: config.databaseUrl, redisUrl: config.redisUrl, tiers: config.tiers });
    cleanups.unshift({ step: 'rate limiter', run: () => limiter.close() });
    const platforms = await startPlatforms(config);
    cleanups.unshift({ step: 'platform clients', run: () => platforms.close() });
    const operatorToken = await loadOperatorToken(config.dataDir, config.operatorToken);
    const version = config.version ?? buildVersion();
    const pagingStates = createPagingStateStore(orm, now);
    const idempotency = createIdempotencyStore(sqlDb, now);
    const limits = (workspaceId: string) => credits.limits(workspaceId);
    const usage = createUsageCharges(sqlDb, { write: await createUsageChargeWriter(orm) });
    // Written before the database closes (cleanups run first to last, and the ORM's is last).
    cleanups.unshift({ step: 'usage ledger', run: () => usage.close() });
    const people = createPersonStore({ orm, db: sqlDb, identity, clock: now });

    const jobStore = await openJobStore({
      databaseUrl: config.databaseUrl,
      pglite: config.mongodbUrl ? undefined : pglite,
      mongodbUrl: config.mongodbUrl,
      processEvery: options.jobs?.processEvery,
      lockLifetimeMs: options.jobs?.lockLifetimeMs,
      onError: (error, failure) => logger.error({ err: error }, JOB_STORE_FAILURE_MESSAGES[failure]),
    });
    cleanups.unshift({ step: 'job store', run: () => jobStore.close(DRAIN_MS) });
    const webhookKeys = await loadEncryptionKeys(config.dataDir, config.webhookKeys);
    await checkSealingKeys(sqlDb, webhookKeys);
    const secrets = createWebhookSecrets(webhookKeys);
    const sender = createEventSender(config.webhookDestinations, { timeoutMs: options.webhookTimeoutMs, clock: now });
    cleanups.push({ step: 'webhook sender', run: () => sender.close() });
    const deliveries = createDeliveryWorker({
      db: sqlDb,
      secrets,
      send: sender,
      policy: createDeliveryPolicy(),
      clock: now,
      onError: (error) => logger.error({ err: error }, 'webhook delivery attempt failed; it is made again when its lease ends'),
    });
    // Before the job store and the database close: no new claims, and the attempts in flight are recorded.
    cleanups.unshift({ step: 'webhook deliveries', run: () => deliveries.close(DRAIN_MS) });
    const runner = createMonitorRunner({
      db: sqlDb,
      credits,
      platforms: platforms.clients,
      clock: now,
      newEventId: () => newEventId(now()),
      leaseMs: options.jobs?.lockLifetimeMs,
      // The next call on this instance reports the run's charge in x-credits-remaining (spec review h, L2).
      balanceMoved: (workspaceId) => leases.forget(workspaceId),
    });
    let monitors: MonitorService | undefined;
    const jobs = createJobs({
      agenda: jobStore.agenda,
      runner,
      deliveries,
      monitors: () => monitors as MonitorService,
      housekeeping: async () => {
        // Holds of calls that died stop counting a grace period after their expiry; this only deletes the rows.
        await credits.sweepExpiredReservations();
        await pagingStates.sweep();
        await idempotency.sweep();
        await people.sweep();
        await sweepExpiredOAuthModels(sqlDb, now);
        const retained = await sweepRetention(sqlDb, now());
        if (Object.values(retained).some((count) => count > 0)) logger.info({ deleted: retained }, 'retention sweep');
        // A rotation of SVC_WEBHOOK_KEYS ends when no secret is left under an older key (docs/webhooks.md).
        const resealed = await resealSecrets(sqlDb, secrets, webhookKeys[0].id);
        if (resealed.resealed > 0 || resealed.remaining > 0) logger.info({ ...resealed, currentKeyId: webhookKeys[0].id }, 'webhook secrets re-encrypted under the current key');
      },
      onError: (error, job) => logger.error({ err: error, job }, 'job failed'),
      deliverySweepMs: options.jobs?.deliverySweepMs,
      jobsInDatabase: jobStore.backend !== 'mongodb',
      clock: now,
    });
    // Instances share a PostgreSQL server, so they share the turns; PGlite has this process alone.
    monitors = createMonitorService({ db: sqlDb, scheduler: jobs, turns: createScheduleTurns(sqlDb, { shared: !pglite }), limits, clock: now });
    const webhooks = createWebhookService({
      db: sqlDb,
      secrets,
      checkDestination: (url) => checkDestination(config.webhookDestinations, url),
      limits,
      deliverNow: (deliveryId, trigger) => jobs.deliverNow(deliveryId, trigger),
      newEventId: () => newEventId(now()),
      clock: now,
      maxWaitingTests: MAX_WAITING_TESTS,
      redeliveryWindow: REDELIVERY_WINDOW,
    });
    if (options.jobs?.autostart !== false) await jobs.start();

    const deps: ServiceDeps = {
      serviceName: SERVICE_NAME,
      version,
      authenticate: (secret, beforeLookup) => identity.authenticateKey(secret, now(), beforeLookup),
      keyFailures: createKeyFailures(),
      databaseReady: sharedPing(orm, { now: () => now().getTime() }),
      billing: config.billing ? createBillingGate(leases) : unbilledGate,
      rateLimits: createRateGate(limiter, credits),
      cursorKeys: await loadKeyring(config.dataDir, { name: 'cursor-keys', label: 'cursor signing key', variable: 'SVC_CURSOR_KEYS' }, config.cursorKeys),
      pagingStates,
      platforms: platforms.clients,
      upstreams: platforms.upstreams,
      account: { usage: (id) => leasedCredits.usage(id), limits },
      monitors,
      webhooks,
      idempotency,
      usage,
    };
    const policy = withIntrospectionAnswers(operationPolicy(operationByField));
    const graphql = createGraphQLServer({ graphiql: config.graphiql, policy });
    // Browsers reach an https public URL over https even when the proxy's hop here is plain http.
    const httpsPublicUrl = config.publicUrl?.startsWith('https:') ?? false;
    const executor = createOperationExecutor(policy, OPERATIONS);
    const connections = createConnectionStore(sqlDb, now, tokenCache);
    const oauthKeys = await loadOAuthServerKeys(config.dataDir, config.oauthKeys);
    // MCP sign-in needs the public URL, known only once the listener has its port.
    let mcpOAuth: McpOAuth | undefined;
    let oauthRoutes: OAuthRoutes | undefined;
    let provider: Provider | undefined;
    const mcp = createMcpBridge(OPERATIONS, executor, { name: SERVICE_NAME, version }, { allowedOrigins: config.mcpAllowedOrigins, oauth: () => mcpOAuth, streams: mcpStreams });
    cleanups.unshift({ step: 'MCP server', run: () => mcp.close() });
    const server = createHttpServer({
      deps,
      graphql,
      graphqlJson: createJsonPostHandler(graphql, policy),
      rest: createRestHandler(executor, OPERATIONS),
      mcp,
      openApiJson: JSON.stringify(buildOpenApi(OPERATIONS, version)),
      dashboard: createDashboard({
        people,
        identity,
        credits: leasedCredits,
        usage,
        monitors,
        webhooks,
        clock: now,
        httpsPublicUrl,
        endOAuthSession: async (req) => {
          if (provider) await endProviderSession(provider, req);
        },
      }),
      now,
      oauth: () => oauthRoutes,
      cors: createCorsPolicy(config.mcpAllowedOrigins),
    });
    const operatorServer = createOperatorServer(
      createOperatorApi(
        [...identityOperatorRoutes(identity, now), ...billingOperatorRoutes(leasedCredits, identity)],
        (candidate) => operatorTokenMatches(operatorToken, candidate),
        idempotency,
        createOperatorAudit(sqlDb, now),
      ),
    );
    const address = await listen(server, config.port, config.host, cleanups);
    const host = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
    const operatorAddress = await listen(operatorServer, config.operatorPort, config.operatorHost, cleanups);
    const baseUrl = config.publicUrl ?? `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
    const resource = `${baseUrl}/mcp`;
    const approvalPeople = dashboardApprovalPeople(people, httpsPublicUrl);
    provider = createAuthorizationServer({
      issuer: baseUrl,
      resource,
      adapter: oauthModelAdapterFactory(sqlDb, now, keyChanges),
      keys: oauthKeys,
      fetch: options.clientMetadataFetch ?? clientMetadataFetch(cleanups, options.clientMetadataDestinations),
      registrationWait: createRegistrationLimit(),
      authorizationWait: createAuthorizationLimit(),
      sessionTtlSeconds: SESSION_TTL_MS / 1000,
      signedInAccount: async (req) => (await approvalPeople.signedIn(req))?.personId,
    });
    mcpOAuth = createMcpOAuth(baseUrl, connections);
    oauthRoutes = createOAuthRoutes({
      issuer: baseUrl,
      provider,
      mcpOAuth,
      interaction: createInteractionHandler({ provider, resource, people: approvalPeople, connections }),
    });
    const operatorUrl = `http://${config.operatorHost.includes(':') ? `[${config.operatorHost}]` : config.operatorHost}:${operatorAddress.port}`;
    // The operator CLI on this machine finds the operator API here when no --url is given.
    await writeFile(join(config.dataDir, OPERATOR_URL_FILE), `${operatorUrl}\n`);
    const demo = config.demo ? await ensureDemo(identity, people, config.dataDir) : undefined;
    return {
      url: `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`,
      connections,
      operatorUrl,
      version,
      demo,
      people,
      operatorToken,
      orm,
      identity,
      credits: leasedCredits,
      platforms,
      monitors,
      jobs,
      jobStore,
      close: () => runShutdown(cleanups),
    };
  } catch (error) {
    await runShutdown(cleanups);
    throw error;
  }
}
