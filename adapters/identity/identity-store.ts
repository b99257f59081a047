import { randomUUID } from 'node:crypto';
import { LockMode, UniqueConstraintViolationException, type InferEntity } from '@mikro-orm/core';
import type { Em, Orm } from '../db/orm.ts';
import { ApiKey } from '../db/entities/api-key.ts';
import { Membership } from '../db/entities/membership.ts';
import { Person } from '../db/entities/person.ts';
import { Workspace } from '../db/entities/workspace.ts';
import { IdentityError, WorkspaceLimitReached } from './identity-error.ts';
import type { KeyCache } from './key-cache.ts';
import type { ChangedKey } from './key-change-acks.ts';
import type { KeyChangeFeed } from './key-change-feed.ts';
import { generateKeySecret, hashKeySecret, hashesEqual, KEY_LABELS, parseKeySecret, type KeyLabel } from './key-material.ts';
import { throttledLastUsed } from './last-used.ts';
import { invalidScopes, normaliseScopes, type Scope } from './scopes.ts';

/**
 * Live (neither revoked nor expired) API keys a workspace may hold, however they are created (dashboard, rotation,
 * operator): every key is a row, a cache entry and a line of the keys page. A service or two per environment,
 * each rotating, stays far below it.
 */
export const MAX_LIVE_KEYS_PER_WORKSPACE = 100;

/**
 * Live (neither revoked nor ended) MCP connections a workspace may hold, counted apart from its keys: each is a row, a
 * key-cache entry and a line of the keys page too, and unbounded one person approving one client in a loop made 119.
 * Checked under the same workspace row lock as the key cap (`adapters/oauth/connection-store.ts`).
 */
export const MAX_LIVE_CONNECTIONS_PER_WORKSPACE = 100;

/** The dashboard's default key lifetime; callers apply it (a key may also be created without expiry). */
export const DEFAULT_KEY_TTL_DAYS = 90;
const DAY_MS = 86_400_000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Times come back as epoch milliseconds (float8) so both drivers hand over plain numbers. */
const AUTH_QUERY = `select "id", "workspace_id", "label", "scopes", "hash",
  (select w."owner_person_id" from "workspace" w where w."id" = "api_key"."workspace_id") as "person_id",
  (extract(epoch from "created_at") * 1000)::float8 as "created_ms",
  (extract(epoch from "expires_at") * 1000)::float8 as "expires_ms",
  "revoked_at" is not null as "revoked"
  from "api_key" where "hash" = ?`;

interface AuthRow {
  id: string;
  workspace_id: string;
  label: KeyLabel;
  scopes: Scope[];
  hash: string;
  person_id: string | null;
  created_ms: number;
  expires_ms: number | null;
  revoked: boolean;
}

export function defaultKeyExpiry(now: Date = new Date(), days: number = DEFAULT_KEY_TTL_DAYS): Date {
  return new Date(now.getTime() + days * DAY_MS);
}

export interface PersonRecord {
  id: string;
  email: string;
  name: string;
  createdAt: Date;
}

/** A person looked up by email, with whether anyone can sign in as them. */
export interface FoundPerson extends PersonRecord {
  /** Someone signed up with this email (or a password was set): an operator-made person has none until then. */
  hasPassword: boolean;
}

export interface WorkspaceRecord {
  id: string;
  name: string;
  ownerPersonId: string | null;
  /** True for the owner's oldest workspace (and for workspaces the operator creates without an owner). */
  receivesFreeGrant: boolean;
  createdAt: Date;
}

export interface ApiKeySummary {
  keyId: string;
  /** `mcp_connection`: an MCP client a person approved (named `<client> (MCP)`); it has no secret of its own. */
  kind: 'api_key' | 'mcp_connection';
  workspaceId: string;
  label: KeyLabel;
  name: string;
  scopes: Scope[];
  /** The first characters of the secret, for telling keys apart in lists (`svc_live_AbC`). */
  prefix: string;
  createdAt: Date;
  expiresAt: Date | null;
  revokedAt: Date | null;
  lastUsedAt: Date | null;
}

export interface CreatedApiKey extends ApiKeySummary {
  /** The secret, shown once: only its hash is stored. */
  key: string;
}

export interface AuthenticatedKey {
  keyId: string;
  workspaceId: string;
  label: KeyLabel;
  scopes: Scope[];
  expiresAt: Date | null;
  createdAt: Date;
  /** The workspace's owner, when it has one. */
  personId?: string;
}

export type AuthenticationFailure = { failure: 'malformed' | 'unknown' | 'expired' | 'revoked' };
export type AuthenticationResult = AuthenticatedKey | AuthenticationFailure;

export interface CreateApiKeyInput {
  workspaceId: string;
  label: KeyLabel;
  scopes: readonly string[];
  name?: string;
  /** `null` makes a key that never expires; use `defaultKeyExpiry()` for the dashboard default. */
  expiresAt: Date | null;
  /**
   * The live key this one replaces (a rotation): it is not counted, so a workspace at the cap can still rotate a leaked
   * key, going one over until the old key is revoked at the rotation's end. A second twin of the same key is refused.
   */
  replacing?: string;
}

export interface IdentityStore {
  /** Throws IdentityError('duplicate_email') when the (case-insensitive) email is taken. */
  createPerson(input: { email: string; name: string }): Promise<PersonRecord>;
  getPersonByEmail(email: string): Promise<FoundPerson | null>;
  /**
   * With `maxOwned`, throws WorkspaceLimitReached when the owner already owns that many (judged under a lock on the
   * person, so parallel creates cannot pass it together).
   */
  createWorkspace(input: { name: string; ownerPersonId?: string; maxOwned?: number }): Promise<WorkspaceRecord>;
  getWorkspace(workspaceId: string): Promise<WorkspaceRecord | null>;
  createApiKey(input: CreateApiKeyInput): Promise<CreatedApiKey>;
  /** Revokes at once; returns the key as it now stands, or null for an unknown key id. Idempotent. */
  revokeApiKey(keyId: string, now?: Date): Promise<ApiKeySummary | null>;
  /**
   * `beforeLookup` is called when the key must be read from the database (it is not cached), with whether this
   * instance read it live lately (KeyCache.known); it may throw to refuse the lookup.
   */
  authenticateKey(secret: string, now?: Date, beforeLookup?: (known: boolean) => void): Promise<AuthenticationResult>;
  listKeys(workspaceId: string): Promise<ApiKeySummary[]>;
}

export function isAuthenticationFailure(result: AuthenticationResult): result is AuthenticationFailure {
  return 'failure' in result;
}

export interface IdentityStoreOptions {
  /** Live keys by hash; without one every authentication reads the database. */
  keyCache?: KeyCache<AuthenticatedKey>;
  /** The database's key change feed: a revocation answers once every live instance has dropped the key. */
  keyChanges?: KeyChangeFeed;
}

/** A revocation writes `revoked_at` once and reports the transaction's id, which names the change instances acknowledge. */
const REVOKE = `update "api_key" set "revoked_at" = ? where "id" = ? and "revoked_at" is null returning "id", txid_current()::text as "txid"`;

/**
 * People, workspaces and API keys. Every call works on its own fork of the entity manager, so no identity
 * map is shared between requests. Authentication reads a key row once and then answers from the key cache,
 * which forgets a key the moment it changes (docs/hot-path.md): revocation and expiry hold on the next call.
 */
export function createIdentityStore(orm: Orm, options: IdentityStoreOptions = {}): IdentityStore {
  const fork = (): Em => orm.em.fork({ clear: true });
  const cache = options.keyCache;

  /** At most once a minute per key, so the write is not a round trip per call (and it does not flush key caches). */
  const recordUse = throttledLastUsed(async (keyId, now) => {
    await fork().nativeUpdate(ApiKey, { id: keyId }, { lastUsedAt: now });
  });

  return {
    async createPerson({ email, name }) {
      const em = fork();
      const person = em.create(Person, { id: randomUUID(), email: normaliseEmail(email), name, createdAt: new Date() });
      try {
        await em.flush();
      } catch (error) {
        if (error instanceof UniqueConstraintViolationException) {
          throw new IdentityError('duplicate_email', 'A person with this email already exists.', { field: 'email' });
        }
        throw error;
      }
      return toPersonRecord(person);
    },

    async getPersonByEmail(email) {
      const person = await fork().findOne(Person, { email: normaliseEmail(email) });
      return person ? { ...toPersonRecord(person), hasPassword: person.passwordHash != null } : null;
    },

    async createWorkspace({ name, ownerPersonId, maxOwned }) {
      if (ownerPersonId === undefined) {
        const em = fork();
        const workspace = em.create(Workspace, {
          id: randomUUID(),
          name,
          ownerPersonId: null,
          receivesFreeGrant: true,
          createdAt: new Date(),
        });
        await em.flush();
        return toWorkspaceRecord(workspace);
      }
      if (!UUID.test(ownerPersonId)) throw unknownPerson(ownerPersonId);
      try {
        return await createOwnedWorkspace(fork(), name, ownerPersonId, maxOwned);
      } catch (error) {
        // Two workspaces created at once for one person both saw "no grant yet"; the partial unique
        // index let one win. The loser is, by construction, not the oldest: it gets no grant.
        if (error instanceof UniqueConstraintViolationException) {
          return await createOwnedWorkspace(fork(), name, ownerPersonId, maxOwned, false);
        }
        throw error;
      }
    },

    async getWorkspace(workspaceId) {
      if (!UUID.test(workspaceId)) return null;
      const workspace = await fork().findOne(Workspace, { id: workspaceId });
      return workspace ? toWorkspaceRecord(workspace) : null;
    },

    async createApiKey({ workspaceId, label, scopes, name, expiresAt, replacing }) {
      if (!KEY_LABELS.includes(label)) {
        throw new IdentityError('invalid_label', `label must be one of ${KEY_LABELS.join(', ')}.`, { field: 'label' });
      }
      const unknown = invalidScopes(scopes);
      if (unknown.length > 0) {
        throw new IdentityError('invalid_scope', `Unknown scopes: ${unknown.join(', ')}.`, {
          field: 'scopes',
          details: { invalidScopes: unknown },
        });
      }
      const createdAt = new Date();
      if (expiresAt !== null && expiresAt.getTime() <= createdAt.getTime()) {
        throw new IdentityError('invalid_expiry', 'expiresAt must be in the future.', { field: 'expiresAt' });
      }
      if (!UUID.test(workspaceId)) throw unknownWorkspace(workspaceId);
      // Under the workspace's row lock: two creations at once cannot both take the last place.
      return fork().transactional(async (tx) => {
        if (!(await tx.findOne(Workspace, { id: workspaceId }, { lockMode: LockMode.PESSIMISTIC_WRITE }))) throw unknownWorkspace(workspaceId);
        const live = await tx.count(ApiKey, {
          workspaceId,
          kind: 'api_key',
          revokedAt: null,
          $or: [{ expiresAt: null }, { expiresAt: { $gt: createdAt } }],
          ...(replacing === undefined ? {} : { id: { $ne: replacing } }),
        });
        if (live >= MAX_LIVE_KEYS_PER_WORKSPACE) {
          throw new IdentityError('key_limit', `This workspace already has ${MAX_LIVE_KEYS_PER_WORKSPACE} live keys, the most it may hold: revoke one it no longer uses first.`, {
            details: { limit: 'keys', maximum: MAX_LIVE_KEYS_PER_WORKSPACE },
          });
        }
        const generated = generateKeySecret(label);
        const row = tx.create(ApiKey, {
          id: randomUUID(),
          workspaceId,
          kind: 'api_key',
          label,
          name: name ?? `${label} key`,
          scopes: normaliseScopes(scopes as Scope[]),
          hash: generated.hash,
          prefix: generated.prefix,
          createdAt,
          expiresAt,
          revokedAt: null,
          lastUsedAt: null,
        });
        await tx.flush();
        return { ...toKeySummary(row), key: generated.secret };
      });
    },

    async revokeApiKey(keyId, now = new Date()) {
      if (!UUID.test(keyId)) return null;
      // Only the first revocation sets revokedAt, so the recorded time is when the key actually died.
      const write = () => orm.em.getConnection().execute<ChangedKey[]>(REVOKE, [now.toISOString(), keyId]);
      // Answers once every live instance has dropped the key, so a call made after this answer is refused everywhere.
      await (options.keyChanges ? options.keyChanges.propagate(write) : write());
      cache?.forget(keyId);
      const row = await fork().findOne(ApiKey, { id: keyId });
      return row ? toKeySummary(row) : null;
    },

    async authenticateKey(secret, now = new Date(), beforeLookup) {
      if (!parseKeySecret(secret)) return { failure: 'malformed' };
      const hash = hashKeySecret(secret);
      const cached = cache?.lookup(hash, now.getTime());
      if (cached === 'expired') return { failure: 'expired' };
      if (cached) {
        await recordUse(cached.keyId, now);
        return cached;
      }
      beforeLookup?.(cache?.known(hash) ?? false);
      const generation = cache?.generation ?? 0;
      // The hot path of every request: one statement on the unique hash index, no entity hydration
      // (measured at a third of the cost of em.findOne on both drivers).
      const [row] = await orm.em.getConnection().execute<AuthRow[]>(AUTH_QUERY, [hash]);
      if (!row || !hashesEqual(row.hash, hash)) return { failure: 'unknown' };
      if (row.revoked) return { failure: 'revoked' };
      // No grace period: a key is dead from the instant it reaches its expiry.
      if (row.expires_ms !== null && now.getTime() >= row.expires_ms) return { failure: 'expired' };
      await recordUse(row.id, now);
      const key: AuthenticatedKey = {
        keyId: row.id,
        workspaceId: row.workspace_id,
        label: row.label,
        scopes: row.scopes,
        expiresAt: row.expires_ms === null ? null : new Date(row.expires_ms),
        createdAt: new Date(row.created_ms),
        ...(row.person_id === null ? {} : { personId: row.person_id }),
      };
      // Shared by every call of this key while cached: nobody may change it.
      Object.freeze(key);
      cache?.remember(hash, key, row.expires_ms, generation, now.getTime());
      return key;
    },

    async listKeys(workspaceId) {
      if (!UUID.test(workspaceId)) return [];
      const rows = await fork().find(ApiKey, { workspaceId }, { orderBy: { createdAt: 'asc', id: 'asc' } });
      return rows.map(toKeySummary);
    },
  };
}

async function createOwnedWorkspace(em: Em, name: string, ownerPersonId: string, maxOwned: number | undefined, allowGrant = true): Promise<WorkspaceRecord> {
  return em.transactional(async (tx) => {
    if (!(await tx.findOne(Person, { id: ownerPersonId }, { lockMode: LockMode.PESSIMISTIC_WRITE }))) throw unknownPerson(ownerPersonId);
    if (maxOwned !== undefined && (await tx.count(Workspace, { ownerPersonId })) >= maxOwned) throw new WorkspaceLimitReached(maxOwned);
    const alreadyGranted = await tx.count(Workspace, { ownerPersonId, receivesFreeGrant: true });
    const createdAt = new Date();
    const workspace = tx.create(Workspace, {
      id: randomUUID(),
      name,
      ownerPersonId,
      receivesFreeGrant: allowGrant && alreadyGranted === 0,
      createdAt,
    });
    tx.create(Membership, { personId: ownerPersonId, workspaceId: workspace.id, role: 'owner', createdAt });
    await tx.flush();
    return toWorkspaceRecord(workspace);
  });
}

function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

function unknownPerson(personId: string): IdentityError {
  return new IdentityError('unknown_person', 'No such person.', { field: 'ownerPersonId', details: { personId } });
}

function unknownWorkspace(workspaceId: string): IdentityError {
  return new IdentityError('unknown_workspace', 'No such workspace.', { field: 'workspaceId', details: { workspaceId } });
}

function toPersonRecord(row: InferEntity<typeof Person>): PersonRecord {
  return { id: row.id, email: row.email, name: row.name, createdAt: row.createdAt };
}

function toWorkspaceRecord(row: InferEntity<typeof Workspace>): WorkspaceRecord {
  return {
    id: row.id,
    name: row.name,
    ownerPersonId: row.ownerPersonId ?? null,
    receivesFreeGrant: row.receivesFreeGrant,
    createdAt: row.createdAt,
  };
}

/**
 * A connection ends with its grant, which a refresh moves on and 30 idle days let expire: the grant's end is its
 * expiry in every key list. Housekeeping copies that end onto the connection's own row before deleting the grant,
 * ENDED_CONNECTION_GRANT_RETENTION_DAYS after it. A connection whose grant an earlier version's housekeeping deleted
 * without that ended at an unknown time: shown ended at its last use, or its creation.
 */
function connectionEnd(row: InferEntity<typeof ApiKey>): Date {
  return row.grantEndsAt ?? row.expiresAt ?? row.lastUsedAt ?? row.createdAt;
}

function toKeySummary(row: InferEntity<typeof ApiKey>): ApiKeySummary {
  return {
    keyId: row.id,
    kind: row.kind,
    workspaceId: row.workspaceId,
    label: row.label,
    name: row.name,
    scopes: row.scopes as Scope[],
    prefix: row.prefix,
    createdAt: row.createdAt,
    expiresAt: row.kind === 'mcp_connection' ? connectionEnd(row) : (row.expiresAt ?? null),
    revokedAt: row.revokedAt ?? null,
    lastUsedAt: row.lastUsedAt ?? null,
  };
}
