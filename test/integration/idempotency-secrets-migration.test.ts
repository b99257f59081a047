import { describe, expect, it } from 'vitest';
import { Migration20261125005000_idempotency_secrets_purged } from '../../adapters/db/migrations/Migration20261125005000_idempotency_secrets_purged.ts';
import { useMigratedOrm } from '../support/migrated-orm.ts';
import { ANSWERS_WITHOUT_SECRETS, insertKeptAnswers } from '../support/kept-answers.ts';

/** Answers kept before secrets were withheld from replays: the ones holding a secret go, the others stay. */
describe('Migration20261125005000_idempotency_secrets_purged', () => {
  const migrated = useMigratedOrm();

  it('deletes kept webhook secrets and operator keys, and nothing else', async () => {
    const connection = migrated.orm.em.getConnection();
    // The table as it was when this migration ran: Migration20261125006000 later made the body text.
    await connection.execute(`alter table "idempotency_key" alter column "body" type jsonb using "body"::jsonb`);
    await insertKeptAnswers(migrated.orm, new Date());
    const migration = new Migration20261125005000_idempotency_secrets_purged(migrated.orm.em.getDriver() as never, migrated.orm.config as never);
    migration.up();
    for (const query of migration.getQueries()) await connection.execute(query as string);
    const left = await connection.execute<{ key: string }[]>(`select "key" from "idempotency_key" order by "key"`, [], 'all');
    expect(left.map((row) => row.key)).toEqual(ANSWERS_WITHOUT_SECRETS);
  });
});
