import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { embeddedDatabase, initOrm, type Orm } from '../../../adapters/db/orm.ts';
import { createIdentityStore, type AuthenticatedKey, type IdentityStore, type WorkspaceRecord } from '../../../adapters/identity/identity-store.ts';
import type { ChangedKey } from '../../../adapters/identity/key-change-acks.ts';
import { KeyCache } from '../../../adapters/identity/key-cache.ts';
import { KEY_ACKS_CHANNEL, keyCachesFollowing, listenToPglite, listenToPostgres, type KeyChangeFeed, type KeyChangeHandlers } from '../../../adapters/identity/key-change-feed.ts';
import { createTestDatabase, type TestDatabase } from '../../support/database.ts';
import { useMigratedOrm } from '../../support/migrated-orm.ts';

/** The identity store with its key cache and the database's change feed, on the backend of this run. */
describe('key cache', () => {
  const migrated = useMigratedOrm();
  let feed: KeyChangeFeed;
  let store: IdentityStore;
  let workspace: WorkspaceRecord;
  /** Statements this ORM sent, so a test can tell a cached answer from a database read. */
  let statements = 0;

  beforeAll(async () => {
    const cache = new KeyCache<AuthenticatedKey>({ enabled: false });
    const pglite = embeddedDatabase(migrated.orm);
    feed = pglite ? await listenToPglite(pglite, keyCachesFollowing(cache)) : await listenToPostgres(migrated.db.databaseUrl!, keyCachesFollowing(cache));
    const connection = migrated.orm.em.getConnection();
    const execute = connection.execute.bind(connection);
    connection.execute = ((...args: Parameters<typeof execute>) => {
      statements++;
      return execute(...args);
    }) as typeof connection.execute;
    store = createIdentityStore(migrated.orm, { keyCache: cache, keyChanges: feed });
    workspace = await store.createWorkspace({ name: 'Cache' });
  });

  afterAll(async () => {
    await feed?.close();
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
    // An operator's statement, waited on as the service's own writes are: until every instance dropped the key.
    await feed.propagate(() => migrated.orm.em.getConnection().execute<ChangedKey[]>(`update "api_key" set "revoked_at" = now() where "id" = ? returning "id", txid_current()::text as "txid"`, [created.keyId]));
    expect(await store.authenticateKey(created.key)).toEqual({ failure: 'revoked' });
  });

  it('a deleted workspace takes its keys out of the cache', async () => {
    const other = await store.createWorkspace({ name: 'Gone' });
    const created = await store.createApiKey({ workspaceId: other.id, label: 'live', scopes: ['read:forum'], expiresAt: null });
    expect(await store.authenticateKey(created.key)).toMatchObject({ keyId: created.keyId });
    // The keys go by cascade: the write names no key, so the test reads their changes the way the trigger names them.
    await feed.propagate(() =>
      migrated.orm.em.getConnection().execute<ChangedKey[]>(
        `with gone as (delete from "workspace" where "id" = ? returning "id") select k."id", txid_current()::text as "txid" from "api_key" k join gone on k."workspace_id" = gone."id"`,
        [other.id],
      ),
    );
    expect(await store.authenticateKey(created.key)).toEqual({ failure: 'unknown' });
  });

  it('last-used timestamps do not flush the cache (they do not notify)', async () => {
    const created = await store.createApiKey({ workspaceId: workspace.id, label: 'live', scopes: ['read:forum'], expiresAt: null });
    expect(await store.authenticateKey(created.key)).toMatchObject({ keyId: created.keyId });
    await migrated.orm.em.getConnection().execute(`update "api_key" set "last_used_at" = now() where "id" = ?`, [created.keyId]);
    await settle();
    const before = statements;
    expect(await store.authenticateKey(created.key)).toMatchObject({ keyId: created.keyId });
    expect(statements).toBe(before);
  });
});

/**
 * Two instances on one PostgreSQL, each with its own ORM, key cache and change feed. Instance B's listener is held
 * back through its change handler: A's revocation must not answer before B has dropped the key (issue 13).
 */
describe.runIf(process.env.TEST_DATABASE_URL)('key changes acknowledged by every instance', () => {
  let db: TestDatabase;
  const instances: Array<{ orm: Orm; feed: KeyChangeFeed; store: IdentityStore }> = [];
  let a: IdentityStore;
  let b: IdentityStore;
  let cacheB: KeyCache<AuthenticatedKey>;
  /** While set, B's listener waits on it before applying a change (and so before acknowledging it). */
  let holdB: Promise<void> | undefined;
  let bReceived: (() => void) | undefined;

  const instance = async (instanceId: string, cache: KeyCache<AuthenticatedKey>, handlers: KeyChangeHandlers) => {
    const orm = await initOrm({ databaseUrl: db.databaseUrl });
    // A's revocation waits for B's acknowledgement however slow the machine is, not the default 2 s.
    const feed = await listenToPostgres(db.databaseUrl!, handlers, { instanceId, ackTimeoutMs: 60_000 });
    const store = createIdentityStore(orm, { keyCache: cache, keyChanges: feed });
    instances.push({ orm, feed, store });
    return store;
  };

  beforeAll(async () => {
    db = await createTestDatabase();
    const cacheA = new KeyCache<AuthenticatedKey>({ enabled: false });
    a = await instance('instance-a', cacheA, keyCachesFollowing(cacheA));
    cacheB = new KeyCache<AuthenticatedKey>({ enabled: false });
    const followingB = keyCachesFollowing(cacheB);
    b = await instance('instance-b', cacheB, {
      ...followingB,
      changed: async (keyId) => {
        bReceived?.();
        await holdB;
        followingB.changed(keyId);
      },
    });
  });

  afterAll(async () => {
    for (const { feed, orm } of instances) {
      await feed.close();
      await orm.close(true);
    }
    await db?.drop();
  });

  it("answers a revocation only once the other instance's listener has applied it", async () => {
    const workspace = await a.createWorkspace({ name: 'Two instances' });
    const created = await a.createApiKey({ workspaceId: workspace.id, label: 'live', scopes: ['read:forum'], expiresAt: null });
    expect(await b.authenticateKey(created.key)).toMatchObject({ keyId: created.keyId });

    let release!: () => void;
    holdB = new Promise((resolve) => (release = resolve));
    const received = new Promise<void>((resolve) => (bReceived = resolve));
    // The test hears the acknowledgements too: A's own one arriving means A's listener has it as well.
    const observer = new pg.Client({ connectionString: db.databaseUrl });
    await observer.connect();
    const ackedByA = new Promise<void>((resolve) => observer.on('notification', (message) => message.payload?.startsWith('instance-a ') && resolve()));
    await observer.query(`listen ${KEY_ACKS_CHANNEL}`);
    let answered = false;
    const revoking = a.revokeApiKey(created.keyId).then((summary) => ((answered = true), summary));

    // Both listeners have the change; A applied and acknowledged it, B holds it. Then round trips on A's own pool,
    // after which A's revocation would have answered, were it waiting on its own listener alone.
    await Promise.all([received, ackedByA]);
    for (let trip = 0; trip < 5; trip++) await instances[0]!.orm.em.getConnection().execute('select 1');
    await observer.end();
    expect(answered).toBe(false);
    // The window the acknowledgement closes: B, not yet told, still answers from its cache.
    expect(await b.authenticateKey(created.key)).toMatchObject({ keyId: created.keyId });

    release();
    expect((await revoking)?.revokedAt).toBeInstanceOf(Date);
    expect(await b.authenticateKey(created.key)).toEqual({ failure: 'revoked' });
    holdB = undefined;
  });
});
