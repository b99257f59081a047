import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { sqlDbFromOrm, type SqlDb } from '../../../adapters/db/sql.ts';
import { KeyCache } from '../../../adapters/identity/key-cache.ts';
import { createConnectionStore, type ConnectionStore, type VerifiedAccessToken } from '../../../adapters/oauth/connection-store.ts';
import type { ChangedKey } from '../../../adapters/identity/key-change-acks.ts';
import { oauthModelAdapterFactory, storedId } from '../../../adapters/oauth/oauth-model-adapter.ts';
import { useMigratedOrm } from '../../support/migrated-orm.ts';

/** MCP access tokens served from the key cache: expiry judged on the injected clock, with no read. */
describe('access tokens in the key cache', () => {
  const migrated = useMigratedOrm();
  let sql: SqlDb;
  let store: ConnectionStore;
  let now = new Date('2026-11-25T00:00:00Z');
  let statements = 0;

  beforeAll(async () => {
    const base = sqlDbFromOrm(migrated.orm);
    sql = { ...base, all: (text, params) => (statements++, base.all(text, params)) };
    store = createConnectionStore(sql, () => now, new KeyCache<VerifiedAccessToken>());
  });

  it('answers a known token from memory until the instant it expires, then refuses it without a read', async () => {
    const workspaceId = randomUUID();
    const personId = randomUUID();
    const grantId = `grant-${randomUUID()}`;
    await sql.all(`insert into "workspace" ("id", "name", "owner_person_id", "receives_free_grant", "created_at") values (?, 'W', null, true, now())`, [workspaceId]);
    await sql.all(`insert into "person" ("id", "email", "name", "created_at") values (?, ?, 'P', now())`, [personId, `${personId}@example.com`]);
    const connection = await store.create({ workspaceId, personId, clientId: 'client', clientName: 'Agent', scopes: ['read:social'], grantId });
    const token = `token-${randomUUID()}`;
    // Within the cache's 60 s re-read and the minute of last-used times: every answer below comes from memory.
    const expiresAt = new Date(now.getTime() + 30_000);
    await sql.all(`insert into "oauth_model" ("kind", "id", "payload", "grant_id", "expires_at") values ('AccessToken', ?, ?::jsonb, ?, ?)`, [
      storedId('AccessToken', token),
      JSON.stringify({ clientId: 'client', aud: 'http://127.0.0.1/mcp', exp: expiresAt.getTime() / 1000, grantId, scope: 'read:social usage:read' }),
      grantId,
      expiresAt.toISOString(),
    ]);

    expect(await store.verifyAccessToken(token)).toMatchObject({ keyId: connection.keyId, workspaceId, scopes: ['read:social'] });
    now = new Date(expiresAt.getTime() - 1);
    const before = statements;
    expect(await store.verifyAccessToken(token)).toMatchObject({ keyId: connection.keyId });
    now = expiresAt;
    expect(await store.verifyAccessToken(token)).toEqual({ failure: 'unknown' });
    expect(statements).toBe(before);
  });

  it("revoking a grant's records waits for every instance to forget its connection's access tokens", async () => {
    const workspaceId = randomUUID();
    const grantId = `grant-${randomUUID()}`;
    const personId = randomUUID();
    await sql.all(`insert into "workspace" ("id", "name", "owner_person_id", "receives_free_grant", "created_at") values (?, 'W', null, true, now())`, [workspaceId]);
    await sql.all(`insert into "person" ("id", "email", "name", "created_at") values (?, ?, 'P', now())`, [personId, `${personId}@example.com`]);
    const connection = await store.create({ workspaceId, personId, clientId: 'client', clientName: 'Agent', scopes: ['read:social'], grantId });
    const expiresAt = new Date(now.getTime() + 30_000).toISOString();
    for (const [kind, id] of [['AccessToken', 'token-a'], ['AccessToken', 'token-b'], ['RefreshToken', 'refresh']]) {
      await sql.all(`insert into "oauth_model" ("kind", "id", "payload", "grant_id", "expires_at") values (?, ?, '{}'::jsonb, ?, ?)`, [kind, storedId(kind, id), grantId, expiresAt]);
    }
    // The feed as the adapter sees it: what each propagated write changed, the changes every instance is waited on for.
    const propagated: ChangedKey[][] = [];
    const keyChanges = {
      propagate: async <T extends ChangedKey>(write: () => Promise<T[]>) => {
        const changed = await write();
        propagated.push(changed);
        return changed;
      },
    };
    await oauthModelAdapterFactory(sql, () => now, keyChanges)('AccessToken').revokeByGrantId(grantId);

    expect(propagated).toHaveLength(1);
    expect(propagated[0]!.map((change) => change.id)).toEqual([connection.keyId, connection.keyId]);
    expect(propagated[0]!.every((change) => /^\d+$/.test(change.txid))).toBe(true);
    expect(await sql.all(`select 1 from "oauth_model" where "grant_id" = ?`, [grantId])).toEqual([]);
  });
});
