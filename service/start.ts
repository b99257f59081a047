import { mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { billingDbFromOrm } from '../adapters/billing/billing-sql.ts';
import { createCreditsService, type CreditsService } from '../adapters/billing/credits-service.ts';
import { createWeightedRateLimiter } from '../adapters/billing/rate-limiter.ts';
import { startReservationSweeper } from '../adapters/billing/reservation-sweeper.ts';
import { acquireDataDirLock } from '../adapters/db/data-dir-lock.ts';
import { loadOperatorToken, operatorTokenMatches } from '../adapters/db/operator-token.ts';
import { initOrm, pingDatabase, type Orm } from '../adapters/db/orm.ts';
import { createPagingStateStore } from '../adapters/db/paging-state-store.ts';
import { createIdentityStore, type IdentityStore } from '../adapters/identity/identity-store.ts';
import { createMcpBridge } from '../mcp-bridge/mcp-handler.ts';
import { buildOpenApi } from '../rest-bridge/openapi.ts';
import { createRestHandler } from '../rest-bridge/rest-handler.ts';
import { OPERATIONS } from '../schema/catalogue/index.ts';
import { createOperationExecutor, type GetEnveloped } from '../schema/execute-operation.ts';
import type { ServiceDeps } from '../core/service-deps.ts';
import { createBillingGate } from '../schema/pipeline/billing-gate.ts';
import { buildVersion } from './build-version.ts';
import type { ServiceConfig } from './config.ts';
import { ensureDemoKey } from './demo-workspace.ts';
import { createGraphQLServer } from '../schema/pipeline/graphql-server.ts';
import { createHttpServer } from './http-server.ts';
import { billingOperatorRoutes } from '../operator-bridge/billing-routes.ts';
import { createOperatorApi, identityOperatorRoutes } from '../operator-bridge/operator-api.ts';
import { startPlatforms, type Platforms } from './platforms.ts';
import { createRateGate } from '../schema/pipeline/rate-gate.ts';
import { unbilledGate } from '../schema/pipeline/unbilled-gate.ts';

export const SERVICE_NAME = 'conversation-data-service';

export interface RunningService {
  url: string;
  version: string;
  demoKey?: string;
  operatorToken: string;
  orm: Orm;
  identity: IdentityStore;
  credits: CreditsService;
  platforms: Platforms;
  close(): Promise<void>;
}

export interface StartOptions {
  /** Injectable clock (tests of expiry and month rollover). */
  now?: () => Date;
}

/** The composition root: opens the database, builds adapters, the pipeline and the three surfaces, and listens. */
export async function startService(config: ServiceConfig, options: StartOptions = {}): Promise<RunningService> {
  const now = options.now ?? (() => new Date());
  if (!config.billing) console.warn('[svc] WARNING: SVC_BILLING=off — every call is served free. For benchmarks only.');
  mkdirSync(config.dataDir, { recursive: true });
  const lock = config.databaseUrl ? undefined : acquireDataDirLock(config.dataDir);
  const cleanups: Array<() => Promise<void> | void> = [];
  if (lock) cleanups.push(() => lock.release());
  try {
    const orm = await initOrm({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
    cleanups.unshift(() => orm.close(true));
    const identity = createIdentityStore(orm);
    const credits = createCreditsService({ db: billingDbFromOrm(orm), clock: now, tiers: config.tiers });
    // Reservations of calls that died stop counting a grace period after their expiry; the sweeper only deletes the rows.
    const sweeper = startReservationSweeper(credits, { onError: (error) => console.error('[svc] reservation sweep failed', error) });
    cleanups.unshift(() => sweeper.stop());
    const limiter = await createWeightedRateLimiter({ databaseUrl: config.databaseUrl, tiers: config.tiers });
    cleanups.unshift(() => limiter.close());
    const platforms = await startPlatforms(config);
    cleanups.unshift(() => platforms.close());
    const operatorToken = await loadOperatorToken(config.dataDir, config.operatorToken);
    const version = config.version ?? buildVersion();

    const deps: ServiceDeps = {
      serviceName: SERVICE_NAME,
      version,
      authenticate: (secret) => identity.authenticateKey(secret, now()),
      databaseReady: () => pingDatabase(orm),
      billing: config.billing ? createBillingGate(credits) : unbilledGate,
      rateLimits: createRateGate(limiter, credits),
      cursorSecret: operatorToken,
      pagingStates: createPagingStateStore(orm, now),
      platforms: platforms.clients,
      account: { usage: (id) => credits.usage(id), limits: (id) => credits.limits(id) },
    };
    const graphql = createGraphQLServer();
    const executor = createOperationExecutor(graphql.getEnveloped as unknown as GetEnveloped, OPERATIONS);
    const mcp = createMcpBridge(OPERATIONS, executor, { name: SERVICE_NAME, version });
    cleanups.unshift(() => mcp.close());
    const server = createHttpServer({
      deps,
      graphql,
      rest: createRestHandler(executor, OPERATIONS),
      mcp,
      openApiJson: JSON.stringify(buildOpenApi(OPERATIONS, version)),
      operator: createOperatorApi(
        [...identityOperatorRoutes(identity, now), ...billingOperatorRoutes(credits, identity)],
        (candidate) => operatorTokenMatches(operatorToken, candidate),
      ),
      now,
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.port, config.host, () => resolve());
    });
    cleanups.unshift(
      () =>
        new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        }),
    );
    const address = server.address() as AddressInfo;
    const host = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
    const demoKey = config.demo ? await ensureDemoKey(identity, config.dataDir) : undefined;
    return {
      url: `http://${host}:${address.port}`,
      version,
      demoKey,
      operatorToken,
      orm,
      identity,
      credits,
      platforms,
      close: async () => {
        for (const cleanup of cleanups.splice(0)) await cleanup();
      },
    };
  } catch (error) {
    for (const cleanup of cleanups.splice(0)) await Promise.resolve(cleanup()).catch(() => undefined);
    throw error;
  }
}
