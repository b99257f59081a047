import { describe, expect, it } from 'vitest';
import { createIdempotencyStore } from '../../adapters/db/idempotency-store.ts';
import { sqlDbFromOrm } from '../../adapters/db/sql.ts';
import { oauthModelAdapterFactory, REGISTRATION_ACCESS_TOKEN_TTL_S, storedId, sweepExpiredOAuthModels } from '../../adapters/oauth/oauth-model-adapter.ts';
import { useMigratedOrm } from '../support/migrated-orm.ts';
import { insertKeptAnswers } from '../support/kept-answers.ts';

/**
 * Rows of the shape the purge migrations removed, written after them by instances of the earlier version still running
 * during a rolling deploy: housekeeping removes them too, and leaves rows of the current shape.
 */
describe('housekeeping during a rolling deploy', () => {
  const migrated = useMigratedOrm();
  const clock = () => new Date('2026-06-01T00:00:00Z');

  it('deletes fresh idempotency answers that keep a webhook secret or an operator key, and nothing else', async () => {
    const connection = migrated.orm.em.getConnection();
    await insertKeptAnswers(migrated.orm, clock());
    const store = createIdempotencyStore(sqlDbFromOrm(migrated.orm), clock);
    expect(await store.claim('ws-1', 'running', 'h')).toEqual({ kind: 'new' });
    // An answer of the current shape holding what jsonb refuses: the sweep must not try to read it as jsonb.
    await store.claim('ws-1', 'nul', 'h');
    await store.complete('ws-1', 'nul', { status: 200, headers: {}, body: { data: { title: 'a\u0000b', key: 'k' }, meta: {} } });

    expect(await store.sweep()).toBe(2);
    const left = await connection.execute<{ key: string }[]>(`select "key" from "idempotency_key" order by "key"`, [], 'all');
    expect(left.map((row) => row.key)).toEqual(['monitor', 'nul', 'purchase', 'refused', 'running', 'webhook-now']);
  });

  it('deletes sessions stored under their raw id and strips the session id from interactions, keeping current rows', async () => {
    const sql = sqlDbFromOrm(migrated.orm);
    const adapter = oauthModelAdapterFactory(sql, clock);
    const expiresAt = new Date(clock().getTime() + 3_600_000).toISOString();
    const session = { uid: 'u-new', accountId: 'a1', kind: 'Session' };
    await adapter('Session').upsert('session-now', { ...session, jti: 'session-now' }, 3600);
    const interaction = { uid: 'i-now', kind: 'Interaction', params: { client_id: 'c1' } };
    await adapter('Interaction').upsert('i-now', { ...interaction, jti: 'i-now', session: { accountId: 'a1', uid: 'u-new', cookie: 'session-now' } }, 3600);
    // As the version before the hashing stored them.
    const insert = (kind: string, id: string, payload: object) =>
      sql.all(`insert into "oauth_model" ("kind", "id", "payload", "uid", "expires_at") values (?, ?, ?::jsonb, ?, ?)`, [kind, id, JSON.stringify(payload), (payload as { uid: string }).uid, expiresAt]);
    await insert('Session', 'session-old', { uid: 'u-old', accountId: 'a1', kind: 'Session', jti: 'session-old' });
    await insert('Interaction', 'i-old', { uid: 'i-old', kind: 'Interaction', jti: 'i-old', session: { accountId: 'a1', uid: 'u-old', cookie: 'session-old' } });

    await sweepExpiredOAuthModels(sql, clock);

    const rows = await sql.all<{ kind: string; id: string; payload: unknown }>(`select "kind", "id", "payload" from "oauth_model" order by "kind", "id"`);
    expect(rows.map((row) => [row.kind, row.id])).toEqual([
      ['Interaction', 'i-now'],
      ['Interaction', 'i-old'],
      ['Session', storedId('Session', 'session-now')],
    ]);
    expect(JSON.stringify(rows)).not.toMatch(/session-old|"session-now"/);
    expect(await adapter('Session').find('session-now')).toMatchObject({ accountId: 'a1', jti: 'session-now' });
    expect(await adapter('Interaction').find('i-old')).toMatchObject({ uid: 'i-old', session: { accountId: 'a1', uid: 'u-old' } });
  });

  it('ends registration access tokens stored without an end 30 days after their issue, for finding and housekeeping alike', async () => {
    const sql = sqlDbFromOrm(migrated.orm);
    const adapter = oauthModelAdapterFactory(sql, clock);
    const issuedSecondsAgo = (seconds: number) => Math.floor(clock().getTime() / 1000) - seconds;
    // As the version before tokens had a lifetime stores them: no expires_at, no exp.
    const insert = (token: string, iat: number) =>
      sql.all(`insert into "oauth_model" ("kind", "id", "payload") values ('RegistrationAccessToken', ?, ?::jsonb)`, [
        storedId('RegistrationAccessToken', token),
        JSON.stringify({ kind: 'RegistrationAccessToken', clientId: 'c1', iat }),
      ]);
    await insert('rat-ended', issuedSecondsAgo(REGISTRATION_ACCESS_TOKEN_TTL_S));
    await insert('rat-live', issuedSecondsAgo(REGISTRATION_ACCESS_TOKEN_TTL_S - 1));

    expect(await adapter('RegistrationAccessToken').find('rat-ended')).toBeUndefined();
    expect(await adapter('RegistrationAccessToken').find('rat-live')).toMatchObject({ clientId: 'c1', jti: 'rat-live' });

    await sweepExpiredOAuthModels(sql, clock);
    const rows = await sql.all<{ id: string }>(`select "id" from "oauth_model" where "kind" = 'RegistrationAccessToken'`);
    expect(rows.map((row) => row.id)).toEqual([storedId('RegistrationAccessToken', 'rat-live')]);
  });
});
