import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initOrm, type Orm } from '../../adapters/db/orm.ts';
import { Migration20261125005000_idempotency_secrets_purged } from '../../adapters/db/migrations/Migration20261125005000_idempotency_secrets_purged.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { ANSWERS_WITHOUT_SECRETS, insertKeptAnswers } from '../support/kept-answers.ts';

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
    await insertKeptAnswers(orm, new Date());
    const migration = new Migration20261125005000_idempotency_secrets_purged(orm.em.getDriver() as never, orm.config as never);
    migration.up();
    for (const query of migration.getQueries()) await connection.execute(query as string);
    const left = await connection.execute<{ key: string }[]>(`select "key" from "idempotency_key" order by "key"`, [], 'all');
    expect(left.map((row) => row.key)).toEqual(ANSWERS_WITHOUT_SECRETS);
  });
});
