import { randomUUID } from 'node:crypto';
import type { SqlDb } from '../db/sql.ts';
import { MAX_LIVE_CONNECTIONS_PER_WORKSPACE } from '../identity/identity-store.ts';
import type { KeyCache } from '../identity/key-cache.ts';
import { throttledLastUsed } from '../identity/last-used.ts';
import { normaliseScopes, scopesOfToken, type Scope } from '../identity/scopes.ts';
import { storedId } from './oauth-model-adapter.ts';

/**
 * An approved MCP client of a workspace: a principal like a key, listed with the keys as `<client> (MCP)` and revoked
 * like one (any key revocation path sets `revoked_at`; its tokens and grant die with it at once).
 */
export interface Connection {
  keyId: string;
  workspaceId: string;
  personId: string;
  clientId: string;
  name: string;
  scopes: Scope[];
  createdAt: Date;
}

/** What an access token presented on /mcp stands for, once found live and bound to a live connection. */
export interface VerifiedAccessToken {
  keyId: string;
  workspaceId: string;
  clientId: string;
  /** The connection's scopes, as approved on the approval screen. */
  scopes: Scope[];
  /** The token's audience: the resource it was issued for (RFC 8707). */
  audience: string | undefined;
  /** Expiry, epoch seconds. */
  expiresAt: number;
  createdAt: Date;
  /** The person who approved the connection. */
  personId: string;
}

export type TokenFailure = { failure: 'unknown' | 'revoked' };

/** The workspace already holds MAX_LIVE_CONNECTIONS_PER_WORKSPACE live connections: one must be revoked first. */
export class ConnectionLimitReached extends Error {
  constructor() {
    super(`This workspace already has ${MAX_LIVE_CONNECTIONS_PER_WORKSPACE} live MCP connections, the most it may hold.`);
    this.name = 'ConnectionLimitReached';
  }
}

export interface ConnectionStore {
  /** Throws ConnectionLimitReached when the workspace is at the cap (judged under its row lock, as the key cap is). */
  create(input: { workspaceId: string; personId: string; clientId: string; clientName: string; scopes: readonly Scope[]; grantId: string }): Promise<Connection>;
  /**
   * A known live token from the key cache; otherwise one indexed read of the token's record joined to its connection.
   * Revocation (of the connection or the token) is seen on the next call: both invalidate the cache like a key change.
   */
  verifyAccessToken(token: string, beforeLookup?: (known: boolean) => void): Promise<VerifiedAccessToken | TokenFailure>;
}

interface TokenRow {
  payload: unknown;
  key_id: string;
  workspace_id: string;
  person_id: string;
  scopes: Scope[];
  revoked: boolean;
  created_ms: number;
  expires_ms: number | null;
}

const TOKEN_QUERY = `select m."payload", k."id" as "key_id", k."workspace_id", k."person_id", k."scopes", k."revoked_at" is not null as "revoked",
  (extract(epoch from k."created_at") * 1000)::float8 as "created_ms", (extract(epoch from m."expires_at") * 1000)::float8 as "expires_ms"
  from "oauth_model" m join "api_key" k on k."oauth_grant_id" = m."grant_id"
  where m."kind" = 'AccessToken' and m."id" = ? and (m."expires_at" is null or m."expires_at" > ?)`;

/**
 * Live connections of a workspace: not revoked, and not ended, an end read as the key lists read it (its grant's end,
 * else the end copied onto its row, else its last use or creation: `connectionEnd` in identity-store.ts).
 */
const LIVE_CONNECTIONS = `select count(*)::int as "live" from "api_key" k
  where k."workspace_id" = ? and k."kind" = 'mcp_connection' and k."revoked_at" is null
    and coalesce((select g."expires_at" from "oauth_model" g where g."kind" = 'Grant' and g."id" = k."oauth_grant_id"),
      k."expires_at", k."last_used_at", k."created_at") > ?`;

/** The name a connection carries in every key list. */
export function connectionName(clientName: string): string {
  return `${clientName} (MCP)`;
}

/**
 * `tokens`: live access tokens by stored id (the token's SHA-256), forgotten with their connection's key id by the
 * key change feed (a revoked connection, a deleted token record); without it every call reads the database.
 */
export function createConnectionStore(db: SqlDb, clock: () => Date, tokens?: KeyCache<VerifiedAccessToken>): ConnectionStore {
  // To the minute, as for keys.
  const recordUse = throttledLastUsed(async (keyId, now) => {
    await db.all(`update "api_key" set "last_used_at" = ? where "id" = ?`, [now.toISOString(), keyId]);
  });

  return {
    async create({ workspaceId, personId, clientId, clientName, scopes, grantId }) {
      const keyId = randomUUID();
      const createdAt = clock();
      const normalised = normaliseScopes(scopes);
      const name = connectionName(clientName);
      // Under the workspace's row lock, which key creation takes too: parallel approvals cannot both take the last place.
      await db.transaction(async (tx) => {
        await tx.all(`select 1 from "workspace" where "id" = ? for update`, [workspaceId]);
        const [{ live }] = await tx.all<{ live: number }>(LIVE_CONNECTIONS, [workspaceId, createdAt.toISOString()]);
        if (live >= MAX_LIVE_CONNECTIONS_PER_WORKSPACE) throw new ConnectionLimitReached();
        await tx.all(
          `insert into "api_key" ("id", "workspace_id", "kind", "label", "name", "scopes", "hash", "prefix", "created_at", "expires_at", "revoked_at", "last_used_at", "oauth_client_id", "oauth_grant_id", "person_id")
           values (?, ?, 'mcp_connection', 'live', ?, ?::text[], null, 'mcp', ?, null, null, null, ?, ?, ?)`,
          [keyId, workspaceId, name, `{${normalised.join(',')}}`, createdAt.toISOString(), clientId, grantId, personId],
        );
      });
      return { keyId, workspaceId, personId, clientId, name, scopes: normalised, createdAt };
    },

    async verifyAccessToken(token, beforeLookup) {
      const now = clock();
      const id = storedId('AccessToken', token);
      // An expired token's record is invisible to the read below: the same answer from the cache.
      const cached = tokens?.lookup(id, now.getTime());
      if (cached === 'expired') return { failure: 'unknown' };
      if (cached) {
        await recordUse(cached.keyId, now);
        return cached;
      }
      // As for a key (identity-store.ts authenticateKey): a token not cached is read, which the caller may refuse.
      beforeLookup?.(tokens?.known(id) ?? false);
      const generation = tokens?.generation ?? 0;
      const [row] = await db.all<TokenRow>(TOKEN_QUERY, [id, now.toISOString()]);
      if (!row) return { failure: 'unknown' };
      if (row.revoked) return { failure: 'revoked' };
      const payload = (typeof row.payload === 'string' ? JSON.parse(row.payload) : row.payload) as { aud?: unknown; exp?: number; clientId: string; scope?: string };
      await recordUse(row.key_id, now);
      const verified: VerifiedAccessToken = Object.freeze({
        keyId: row.key_id,
        workspaceId: row.workspace_id,
        clientId: payload.clientId,
        // The token's own scope narrows its connection's (docs/mcp-auth.md "Connections").
        scopes: scopesOfToken(row.scopes, (payload.scope ?? '').split(' ')),
        audience: typeof payload.aud === 'string' ? payload.aud : undefined,
        expiresAt: payload.exp ?? 0,
        createdAt: new Date(row.created_ms),
        personId: row.person_id,
      });
      const expiries = [row.expires_ms, payload.exp === undefined ? null : payload.exp * 1000].filter((ms): ms is number => ms !== null);
      tokens?.remember(id, verified, expiries.length ? Math.min(...expiries) : null, generation, now.getTime());
      return verified;
    },
  };
}
