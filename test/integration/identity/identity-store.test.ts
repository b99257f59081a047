import { beforeAll, describe, expect, it } from 'vitest';
import { IdentityError } from '../../../adapters/identity/identity-error.ts';
import {
  createIdentityStore,
  DEFAULT_KEY_TTL_DAYS,
  defaultKeyExpiry,
  type IdentityStore,
  type WorkspaceRecord,
} from '../../../adapters/identity/identity-store.ts';
import { DISPLAY_PREFIX_LENGTH, hashKeySecret } from '../../../adapters/identity/key-material.ts';
import { useMigratedOrm } from '../../support/migrated-orm.ts';

describe('identity store', () => {
  const migrated = useMigratedOrm();
  let store: IdentityStore;
  let workspace: WorkspaceRecord;

  beforeAll(async () => {
    store = createIdentityStore(migrated.orm);
    workspace = await store.createWorkspace({ name: 'Acme' });
  });

  describe('people and workspaces', () => {
    it('creates a person with a normalised, unique email', async () => {
      const person = await store.createPerson({ email: '  Ada@Example.COM ', name: 'Ada' });
      expect(person).toMatchObject({ email: 'ada@example.com', name: 'Ada' });
      expect(person.id).toMatch(/^[0-9a-f-]{36}$/);
      await expect(store.createPerson({ email: 'ada@example.com', name: 'Other' })).rejects.toMatchObject({
        kind: 'duplicate_email',
        field: 'email',
      });
      expect(await store.getPersonByEmail('ADA@example.com ')).toEqual({ ...person, hasPassword: false });
      expect(await store.getPersonByEmail('nobody@example.com')).toBeNull();
    });

    it("gives the free grant to a person's oldest workspace only", async () => {
      const person = await store.createPerson({ email: 'grace@example.com', name: 'Grace' });
      const first = await store.createWorkspace({ name: 'First', ownerPersonId: person.id });
      const second = await store.createWorkspace({ name: 'Second', ownerPersonId: person.id });
      expect(first).toMatchObject({ ownerPersonId: person.id, receivesFreeGrant: true });
      expect(second).toMatchObject({ ownerPersonId: person.id, receivesFreeGrant: false });
      expect(await store.getWorkspace(first.id)).toEqual(first);
      const memberships = await migrated.orm.em
        .getConnection()
        .execute<{ workspace_id: string; role: string }[]>('select workspace_id, role from membership where person_id = ? order by created_at', [person.id]);
      expect(memberships.map((m) => [m.workspace_id, m.role]).sort()).toEqual([[first.id, 'owner'], [second.id, 'owner']].sort());
    });

    it('grants once per person even when several workspaces are created at the same moment', async () => {
      const person = await store.createPerson({ email: 'race@example.com', name: 'Race' });
      const created = await Promise.all(
        Array.from({ length: 6 }, (_, i) => store.createWorkspace({ name: `W${i}`, ownerPersonId: person.id })),
      );
      expect(created.filter((w) => w.receivesFreeGrant)).toHaveLength(1);
    });

    it('gives ownerless (operator-created) workspaces the grant', () => {
      expect(workspace).toMatchObject({ name: 'Acme', ownerPersonId: null, receivesFreeGrant: true });
    });

    it('refuses an unknown owner and answers null for unknown workspaces', async () => {
      await expect(store.createWorkspace({ name: 'X', ownerPersonId: '00000000-0000-4000-8000-000000000000' })).rejects.toMatchObject({
        kind: 'unknown_person',
      });
      await expect(store.createWorkspace({ name: 'X', ownerPersonId: 'not-a-uuid' })).rejects.toBeInstanceOf(IdentityError);
      expect(await store.getWorkspace('00000000-0000-4000-8000-000000000000')).toBeNull();
      expect(await store.getWorkspace('nope')).toBeNull();
    });
  });

  describe('API keys', () => {
    it('creates a key shown once, storing only its hash, with normalised scopes', async () => {
      const expiresAt = defaultKeyExpiry();
      const created = await store.createApiKey({
        workspaceId: workspace.id,
        label: 'live',
        scopes: ['read:forum', 'read:social', 'monitors:read', 'monitors:write'],
        name: 'CI',
        expiresAt,
      });
      expect(created.key).toMatch(/^svc_live_[0-9A-Za-z]{33}$/);
      expect(created).toMatchObject({
        workspaceId: workspace.id,
        label: 'live',
        name: 'CI',
        scopes: ['read:social', 'monitors:write'],
        prefix: created.key.slice(0, DISPLAY_PREFIX_LENGTH),
        expiresAt,
        revokedAt: null,
      });
      const rows = await migrated.orm.em.getConnection().execute<Record<string, unknown>[]>('select * from api_key where id = ?', [created.keyId]);
      expect(rows).toHaveLength(1);
      expect(rows[0].hash).toBe(hashKeySecret(created.key));
      expect(JSON.stringify(rows[0])).not.toContain(created.key);
    });

    it('authenticates a valid key with what whoami needs', async () => {
      const created = await store.createApiKey({ workspaceId: workspace.id, label: 'test', scopes: ['usage:read'], expiresAt: null });
      expect(await store.authenticateKey(created.key)).toEqual({
        keyId: created.keyId,
        workspaceId: workspace.id,
        label: 'test',
        scopes: ['usage:read'],
        expiresAt: null,
        createdAt: created.createdAt,
      });
    });

    it('tells malformed from unknown keys', async () => {
      const created = await store.createApiKey({ workspaceId: workspace.id, label: 'live', scopes: [], expiresAt: null });
      expect(await store.authenticateKey('')).toEqual({ failure: 'malformed' });
      expect(await store.authenticateKey('svc_live_short')).toEqual({ failure: 'malformed' });
      expect(await store.authenticateKey(`${created.key}0`)).toEqual({ failure: 'malformed' });
      const lastChar = created.key.at(-1) === 'a' ? 'b' : 'a';
      expect(await store.authenticateKey(created.key.slice(0, -1) + lastChar)).toEqual({ failure: 'unknown' });
      expect(await store.authenticateKey(created.key.replace('svc_live_', 'svc_test_'))).toEqual({ failure: 'unknown' });
    });

    it('expires with no grace period: valid one millisecond before, dead at the instant', async () => {
      const expiresAt = new Date(Date.now() + 60_000);
      const created = await store.createApiKey({ workspaceId: workspace.id, label: 'live', scopes: ['read:forum'], expiresAt });
      expect(await store.authenticateKey(created.key, new Date(expiresAt.getTime() - 1))).toMatchObject({ keyId: created.keyId });
      expect(await store.authenticateKey(created.key, expiresAt)).toEqual({ failure: 'expired' });
      expect(await store.authenticateKey(created.key, new Date(expiresAt.getTime() + 1))).toEqual({ failure: 'expired' });
    });

    it('defaults the dashboard expiry to 90 days', () => {
      const now = new Date('2026-01-01T00:00:00Z');
      expect(DEFAULT_KEY_TTL_DAYS).toBe(90);
      expect(defaultKeyExpiry(now).toISOString()).toBe('2026-04-01T00:00:00.000Z');
    });

    it('revokes immediately, for every store on the same database, and keeps the first revocation time', async () => {
      const other = createIdentityStore(migrated.orm);
      const created = await store.createApiKey({ workspaceId: workspace.id, label: 'live', scopes: ['read:forum'], expiresAt: null });
      expect(await other.authenticateKey(created.key)).toMatchObject({ keyId: created.keyId });
      const revokedAt = new Date();
      const revoked = await store.revokeApiKey(created.keyId, revokedAt);
      expect(revoked).toMatchObject({ keyId: created.keyId, revokedAt });
      expect(await store.authenticateKey(created.key)).toEqual({ failure: 'revoked' });
      expect(await other.authenticateKey(created.key)).toEqual({ failure: 'revoked' });
      const again = await store.revokeApiKey(created.keyId, new Date(revokedAt.getTime() + 5_000));
      expect(again?.revokedAt).toEqual(revokedAt);
      expect(await store.revokeApiKey('00000000-0000-4000-8000-000000000000')).toBeNull();
      expect(await store.revokeApiKey('garbage')).toBeNull();
    });

    it('reports revoked before expired for a key that is both', async () => {
      const created = await store.createApiKey({ workspaceId: workspace.id, label: 'live', scopes: [], expiresAt: new Date(Date.now() + 1_000) });
      await store.revokeApiKey(created.keyId);
      expect(await store.authenticateKey(created.key, new Date(Date.now() + 10_000))).toEqual({ failure: 'revoked' });
    });

    it('records last use to the minute', async () => {
      const created = await store.createApiKey({ workspaceId: workspace.id, label: 'live', scopes: [], expiresAt: null });
      const t0 = new Date(Date.now() + 1_000);
      await store.authenticateKey(created.key, t0);
      await store.authenticateKey(created.key, new Date(t0.getTime() + 30_000));
      let listed = (await store.listKeys(workspace.id)).find((k) => k.keyId === created.keyId);
      expect(listed?.lastUsedAt).toEqual(t0);
      const t2 = new Date(t0.getTime() + 61_000);
      await store.authenticateKey(created.key, t2);
      listed = (await store.listKeys(workspace.id)).find((k) => k.keyId === created.keyId);
      expect(listed?.lastUsedAt).toEqual(t2);
    });

    it('lists a workspace’s keys without secrets or hashes', async () => {
      const fresh = await store.createWorkspace({ name: 'Listed' });
      const a = await store.createApiKey({ workspaceId: fresh.id, label: 'live', scopes: ['read:forum'], expiresAt: null, name: 'a' });
      const b = await store.createApiKey({ workspaceId: fresh.id, label: 'test', scopes: ['usage:read'], expiresAt: null, name: 'b' });
      const listed = await store.listKeys(fresh.id);
      expect(listed.map((k) => k.keyId).sort()).toEqual([a.keyId, b.keyId].sort());
      for (const key of listed) {
        expect(Object.keys(key).sort()).toEqual(
          ['createdAt', 'expiresAt', 'keyId', 'kind', 'label', 'lastUsedAt', 'name', 'prefix', 'revokedAt', 'scopes', 'workspaceId'].sort(),
        );
      }
      expect(await store.listKeys('00000000-0000-4000-8000-000000000000')).toEqual([]);
    });

    it('refuses unknown scopes, labels, workspaces and past expiries', async () => {
      const base = { workspaceId: workspace.id, label: 'live' as const, scopes: ['read:forum'], expiresAt: null };
      await expect(store.createApiKey({ ...base, scopes: ['read:forum', 'admin'] })).rejects.toMatchObject({
        kind: 'invalid_scope',
        field: 'scopes',
        details: { invalidScopes: ['admin'] },
      });
      await expect(store.createApiKey({ ...base, label: 'prod' as 'live' })).rejects.toMatchObject({ kind: 'invalid_label' });
      await expect(store.createApiKey({ ...base, expiresAt: new Date(Date.now() - 1) })).rejects.toMatchObject({ kind: 'invalid_expiry' });
      await expect(
        store.createApiKey({ ...base, workspaceId: '00000000-0000-4000-8000-000000000000' }),
      ).rejects.toMatchObject({ kind: 'unknown_workspace' });
    });
  });
});
