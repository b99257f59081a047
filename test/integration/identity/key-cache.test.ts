import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { embeddedPglite, initOrm, type Orm } from '../../../adapters/db/orm.ts';
import { createIdentityStore, type IdentityStore, type WorkspaceRecord } from '../../../adapters/identity/identity-store.ts';
import { KeyCache } from '../../../adapters/identity/key-cache.ts';
import { keyCacheFollowing, listenToPglite, listenToPostgres, type KeyChangeFeed } from '../../../adapters/identity/key-change-feed.ts';
import { createTestDatabase, type TestDatabase } from '../../support/database.ts';

/** The identity store with its key cache and the database's change feed, on the backend of this run. */
describe('key cache', () => {
  let db: TestDatabase;
  let orm: Orm;
  let feed: KeyChangeFeed;
  let store: IdentityStore;
  let workspace: WorkspaceRecord;
  /** Statements this ORM sent, so a test can tell a cached answer from a database read. */
  let statements = 0;

  beforeAll(async () => {
    db = await createTestDatabase();
    orm = await initOrm({ databaseUrl: db.databaseUrl, dataDir: db.dataDir });
    const cache = new KeyCache({ enabled: false });
    const pglite = await embeddedPglite(orm);
    feed = pglite ? await listenToPglite(pglite, keyCacheFollowing(cache)) : await listenToPostgres(db.databaseUrl!, keyCacheFollowing(cache));
    const connection = orm.em.getConnection();
    const execute = connection.execute.bind(connection);
    connection.execute = ((...args: Parameters<typeof execute>) => {
      statements++;
      return execute(...args);
    }) as typeof connection.execute;
    store = createIdentityStore(orm, { keyCache: cache, keyChanges: feed });
    workspace = await store.createWorkspace({ name: 'Cache' });
  });

  afterAll(async () => {
    await feed?.close();
    await orm?.close(true);
    await db?.drop();
  });

  const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

  it('answers a known key from memory: the second call reads nothing', async () => {
    const created = await store.createApiKey({ workspaceId: workspace.id, label: 'live', scopes: ['read:forum'], expiresAt: null });
    const now = new Date();
    expect(await store.authenticateKey(created.key, now)).toMatchObject({ keyId: created.keyId });
    await settle();
    const before = statements;
    expect(await store.authenticateKey(created.key, now)).toMatchObject({ keyId: created.keyId, workspaceId: workspace.id, scopes: ['read:forum'] });
    expect(statements).toBe(before);
  });

  it('expires on the injected clock at the instant, with the key still cached and no database read', async () => {
    const expiresAt = new Date(Date.now() + 3_600_000);
    const created = await store.createApiKey({ workspaceId: workspace.id, label: 'live', scopes: ['read:forum'], expiresAt });
    expect(await store.authenticateKey(created.key, new Date(expiresAt.getTime() - 10))).toMatchObject({ keyId: created.keyId });
    await settle();
    const before = statements;
    expect(await store.authenticateKey(created.key, new Date(expiresAt.getTime() - 1))).toMatchObject({ keyId: created.keyId });
    expect(await store.authenticateKey(created.key, expiresAt)).toEqual({ failure: 'expired' });
    expect(await store.authenticateKey(created.key, new Date(expiresAt.getTime() + 1))).toEqual({ failure: 'expired' });
    expect(statements).toBe(before);
  });

  it('a revocation through the store is refused on the very next call', async () => {
    const created = await store.createApiKey({ workspaceId: workspace.id, label: 'live', scopes: ['read:forum'], expiresAt: null });
    expect(await store.authenticateKey(created.key)).toMatchObject({ keyId: created.keyId });
    await store.revokeApiKey(created.keyId);
    expect(await store.authenticateKey(created.key)).toEqual({ failure: 'revoked' });
  });

  it('a revocation written by any other path (plain SQL) reaches the cache through the change feed', async () => {
    const created = await store.createApiKey({ workspaceId: workspace.id, label: 'live', scopes: ['read:forum'], expiresAt: null });
    expect(await store.authenticateKey(created.key)).toMatchObject({ keyId: created.keyId });
    const told = feed.seen(created.keyId, 5_000);
    await orm.em.getConnection().execute(`update "api_key" set "revoked_at" = now() where "id" = ?`, [created.keyId]);
    await told;
    expect(await store.authenticateKey(created.key)).toEqual({ failure: 'revoked' });
  });

  it('a deleted workspace takes its keys out of the cache', async () => {
    const other = await store.createWorkspace({ name: 'Gone' });
    const created = await store.createApiKey({ workspaceId: other.id, label: 'live', scopes: ['read:forum'], expiresAt: null });
    expect(await store.authenticateKey(created.key)).toMatchObject({ keyId: created.keyId });
    const told = feed.seen(created.keyId, 5_000);
    await orm.em.getConnection().execute(`delete from "workspace" where "id" = ?`, [other.id]);
    await told;
    expect(await store.authenticateKey(created.key)).toEqual({ failure: 'unknown' });
  });

  it('last-used timestamps do not flush the cache (they do not notify)', async () => {
    const created = await store.createApiKey({ workspaceId: workspace.id, label: 'live', scopes: ['read:forum'], expiresAt: null });
    expect(await store.authenticateKey(created.key)).toMatchObject({ keyId: created.keyId });
    await orm.em.getConnection().execute(`update "api_key" set "last_used_at" = now() where "id" = ?`, [created.keyId]);
    await settle();
    const before = statements;
    expect(await store.authenticateKey(created.key)).toMatchObject({ keyId: created.keyId });
    expect(statements).toBe(before);
  });
});
