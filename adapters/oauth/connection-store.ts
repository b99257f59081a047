import { randomUUID } from 'node:crypto';
import type { SqlDb } from '../db/sql.ts';
import { throttledLastUsed } from '../identity/last-used.ts';
import { normaliseScopes, type Scope } from '../identity/scopes.ts';
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
}

export type TokenFailure = { failure: 'unknown' | 'revoked' };

export interface ConnectionStore {
  create(input: { workspaceId: string; personId: string; clientId: string; clientName: string; scopes: readonly Scope[]; grantId: string }): Promise<Connection>;
  /** One indexed read: the token's record joined to its connection. Revocation is seen on the next call. */
  verifyAccessToken(token: string): Promise<VerifiedAccessToken | TokenFailure>;
}

interface TokenRow {
  payload: unknown;
  key_id: string;
  workspace_id: string;
  scopes: Scope[];
  revoked: boolean;
  created_ms: number;
}

const TOKEN_QUERY = `select m."payload", k."id" as "key_id", k."workspace_id", k."scopes", k."revoked_at" is not null as "revoked",
  (extract(epoch from k."created_at") * 1000)::float8 as "created_ms"
  from "oauth_model" m join "api_key" k on k."oauth_grant_id" = m."grant_id"
  where m."kind" = 'AccessToken' and m."id" = ? and (m."expires_at" is null or m."expires_at" > ?)`;

/** The name a connection carries in every key list. */
export function connectionName(clientName: string): string {
  return `${clientName} (MCP)`;
}

export function createConnectionStore(db: SqlDb, clock: () => Date): ConnectionStore {
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
      await db.all(
        `insert into "api_key" ("id", "workspace_id", "kind", "label", "name", "scopes", "hash", "prefix", "created_at", "expires_at", "revoked_at", "last_used_at", "oauth_client_id", "oauth_grant_id", "person_id")
         values (?, ?, 'mcp_connection', 'live', ?, ?::text[], null, 'mcp', ?, null, null, null, ?, ?, ?)`,
        [keyId, workspaceId, name, `{${normalised.join(',')}}`, createdAt.toISOString(), clientId, grantId, personId],
      );
      return { keyId, workspaceId, personId, clientId, name, scopes: normalised, createdAt };
    },

    async verifyAccessToken(token) {
      const now = clock();
      const [row] = await db.all<TokenRow>(TOKEN_QUERY, [storedId('AccessToken', token), now.toISOString()]);
      if (!row) return { failure: 'unknown' };
      if (row.revoked) return { failure: 'revoked' };
      const payload = (typeof row.payload === 'string' ? JSON.parse(row.payload) : row.payload) as { aud?: unknown; exp?: number; clientId: string };
      await recordUse(row.key_id, now);
      return {
        keyId: row.key_id,
        workspaceId: row.workspace_id,
        clientId: payload.clientId,
        scopes: row.scopes,
        audience: typeof payload.aud === 'string' ? payload.aud : undefined,
        expiresAt: payload.exp ?? 0,
        createdAt: new Date(row.created_ms),
      };
    },
  };
}
