import { describe, expect, it } from 'vitest';
import { Migration20261125009000_registration_access_token_lifetime } from '../../adapters/db/migrations/Migration20261125009000_registration_access_token_lifetime.ts';
import { useMigratedOrm } from '../support/migrated-orm.ts';

const DAY_S = 86_400;

/** Registration access tokens stored without an end get the one new tokens have: 30 days after their issue. */
describe('Migration20261125009000_registration_access_token_lifetime', () => {
  const migrated = useMigratedOrm();

  it('ends each token without an end 30 days after its iat, and changes nothing else', async () => {
    const connection = migrated.orm.em.getConnection();
    const now = Math.floor(Date.now() / 1000);
    const rows: Array<[string, string, number, string | null]> = [
      ['RegistrationAccessToken', 'old', now - 40 * DAY_S, null],
      ['RegistrationAccessToken', 'recent', now - DAY_S, null],
      ['RegistrationAccessToken', 'dated', now, '2030-01-01T00:00:00.000Z'],
      ['Client', 'client', now - 40 * DAY_S, null],
    ];
    for (const [kind, id, iat, expiresAt] of rows) {
      await connection.execute(`insert into "oauth_model" ("kind", "id", "payload", "expires_at") values (?, ?, ?::jsonb, ?)`, [kind, id, JSON.stringify({ kind, iat }), expiresAt]);
    }
    const migration = new Migration20261125009000_registration_access_token_lifetime(migrated.orm.em.getDriver() as never, migrated.orm.config as never);
    migration.up();
    for (const query of migration.getQueries()) await connection.execute(query as string);
    const ends = await connection.execute<{ id: string; end_s: number | null }[]>(
      `select "id", extract(epoch from "expires_at")::float8 as "end_s" from "oauth_model" order by "id"`, [], 'all');
    expect(Object.fromEntries(ends.map((row) => [row.id, row.end_s === null ? null : Number(row.end_s)]))).toEqual({
      client: null,
      dated: Date.parse('2030-01-01T00:00:00.000Z') / 1000,
      old: now - 10 * DAY_S,
      recent: now + 29 * DAY_S,
    });
  });
});
