import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initOrm, type Orm } from '../../adapters/db/orm.ts';
import { Migration20261125005000_idempotency_secrets_purged } from '../../adapters/db/migrations/Migration20261125005000_idempotency_secrets_purged.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

/** Answers kept before secrets were withheld from replays: the ones holding a secret go, the others stay. */
describe('Migration20261125005000_idempotency_secrets_purged', () => {
  let db: TestDatabase;
  let orm: Orm;

  beforeAll(async () => {
    db = await createTestDatabase();
    orm = await initOrm({ databaseUrl: db.databaseUrl, dataDir: db.dataDir });
  });
  afterAll(async () => {
    await orm?.close(true);
    await db?.drop();
  });

  it('deletes kept webhook secrets and operator keys, and nothing else', async () => {
    const connection = orm.em.getConnection();
    const kept = [
      ['ws-1', 'webhook', { data: { id: 'w1', secret: 'whsec_kept' }, meta: {} }],
      ['operator', 'new-key', { data: { id: 'k1', key: 'svc_live_kept' }, meta: {} }],
      ['operator', 'purchase', { data: { balance: 10 }, meta: {} }],
      ['ws-1', 'monitor', { data: { id: 'm1', key: 'a field of that name outside the operator API' }, meta: {} }],
      ['ws-1', 'refused', { error: { code: 'conflict' } }],
    ] as const;
    for (const [scope, key, body] of kept) {
      await connection.execute(`insert into "idempotency_key" ("scope", "key", "request_hash", "created_at", "status", "headers", "body") values (?, ?, 'h', now(), 201, '{}'::jsonb, ?::jsonb)`, [
        scope,
        key,
        JSON.stringify(body),
      ]);
    }
    const migration = new Migration20261125005000_idempotency_secrets_purged(orm.em.getDriver() as never, orm.config as never);
    migration.up();
    for (const query of migration.getQueries()) await connection.execute(query as string);
    const left = await connection.execute<{ key: string }[]>(`select "key" from "idempotency_key" order by "key"`, [], 'all');
    expect(left.map((row) => row.key)).toEqual(['monitor', 'purchase', 'refused']);
  });
});
