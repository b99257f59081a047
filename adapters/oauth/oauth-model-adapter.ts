import { createHash } from 'node:crypto';
import type { SqlDb, Statement } from '../db/sql.ts';
import { isStorable } from '../db/storable-text.ts';
import type { ChangedKey } from '../identity/key-change-acks.ts';
import type { KeyChangeFeed } from '../identity/key-change-feed.ts';

/** What oidc-provider stores through an adapter: one JSON document per record, with a few indexed fields. */
export interface OAuthPayload {
  grantId?: string;
  uid?: string;
  userCode?: string;
  consumed?: number;
  [field: string]: unknown;
}

/** oidc-provider's adapter contract (one instance per model name: AccessToken, Grant, Session, Client, …). */
export interface OAuthModelAdapter {
  upsert(id: string, payload: OAuthPayload, expiresIn?: number): Promise<void>;
  find(id: string): Promise<OAuthPayload | undefined>;
  findByUid(uid: string): Promise<OAuthPayload | undefined>;
  findByUserCode(userCode: string): Promise<OAuthPayload | undefined>;
  consume(id: string): Promise<void>;
  destroy(id: string): Promise<void>;
  revokeByGrantId(grantId: string): Promise<void>;
}

interface Row {
  payload: unknown;
  consumed_ms: number | null;
}

/** jsonb arrives parsed from pg and as text from some paths; both become an object. */
function parsePayload(row: Row | undefined): OAuthPayload | undefined {
  if (!row) return undefined;
  const payload = (typeof row.payload === 'string' ? JSON.parse(row.payload) : row.payload) as OAuthPayload;
  return row.consumed_ms === null ? payload : { ...payload, consumed: Math.floor(row.consumed_ms / 1000) };
}

/**
 * Records whose id is a bearer credential: like API keys, only its hash is stored, and the payload loses its copy. A
 * session's id is its browser's `_session` cookie. (A session found by its `uid` comes back without its id; the
 * authorization server only compares its account then.)
 */
const CREDENTIAL_KINDS: ReadonlySet<string> = new Set([
  'AccessToken',
  'RefreshToken',
  'AuthorizationCode',
  'ClientCredentials',
  'DeviceCode',
  'BackchannelAuthenticationRequest',
  'RegistrationAccessToken',
  'InitialAccessToken',
  'Session',
]);

/** The row id a record is stored under: the SHA-256 of a credential, the id itself otherwise. */
export function storedId(kind: string, id: string): string {
  return CREDENTIAL_KINDS.has(kind) ? createHash('sha256').update(id).digest('base64url') : id;
}

/**
 * oidc-provider copies a signed-in browser's session id (its `_session` cookie) into each interaction as
 * `session.cookie`; only `interactionDetails` hands it out, and this service reads nothing of it, so it is not kept.
 */
function withoutSessionId(payload: OAuthPayload): OAuthPayload {
  const session = payload.session as Record<string, unknown> | undefined;
  if (!session || !('cookie' in session)) return payload;
  const { cookie: _sessionId, ...rest } = session;
  return { ...payload, session: rest };
}

/**
 * A registration access token only reads its client (RFC 7592 read; update and delete are off), a confidential
 * client's secret included, and is never rotated (oidc-provider rotates it on updates alone): it ends 30 days after
 * registration, when a client nobody connected is deleted too (docs/jobs.md). The authorization server gives
 * oidc-provider this lifetime; the adapter holds it because it ends the tokens stored without one (endOf).
 */
export const REGISTRATION_ACCESS_TOKEN_TTL_S = 30 * 86_400;

/**
 * The end of the `oauth_model` row named `row`: its `expires_at`, or, for a registration access token stored without
 * one, REGISTRATION_ACCESS_TOKEN_TTL_S after its issue (`iat`, seconds). Instances of the version before tokens had a
 * lifetime keep writing such rows during a rolling deploy, after Migration20261125009000 dated the older ones the same
 * way, and they would otherwise never end. Finding and housekeeping both go by it. No end (null) is for ever.
 */
function endOf(row: string): string {
  return `coalesce(${row}."expires_at", case when ${row}."kind" = 'RegistrationAccessToken'
    then to_timestamp((${row}."payload"->>'iat')::bigint) + interval '${REGISTRATION_ACCESS_TOKEN_TTL_S} seconds' end)`;
}

const SELECT = `select "payload", (extract(epoch from "consumed_at") * 1000)::float8 as "consumed_ms" from "oauth_model"`;
const LIVE = `(${endOf('"oauth_model"')} > ?) is not false`;
/**
 * A grant whose connection was revoked is gone for the authorization server too, so a refresh token of a revoked
 * connection is refused (invalid_grant) even before its rows are deleted.
 */
const GRANT_NOT_REVOKED = `not exists (select 1 from "api_key" k where k."oauth_grant_id" = "oauth_model"."id" and k."revoked_at" is not null)`;

/**
 * A grant lives as long as its newest refresh token: oidc-provider saves a grant once, at approval, with a fixed
 * lifetime, and refuses every refresh token of an expired grant, so a connection refreshed every day would still end
 * then. Each refresh token saved (at the code exchange, at each rotation) moves its grant's end, in the row and in the
 * payload oidc-provider checks (`exp`, epoch seconds), to the token's end; never earlier, and never bringing back a
 * grant already deleted (an update, in the same statement as the token's insert).
 */
function grantExtension(payload: OAuthPayload, expiresAt: string | null): Statement | undefined {
  if (!payload.grantId || !expiresAt || typeof payload.exp !== 'number') return undefined;
  return {
    sql: `with "extended_grant" as (
            update "oauth_model" set "expires_at" = ?, "payload" = jsonb_set("payload", '{exp}', to_jsonb(?::bigint))
            where "kind" = 'Grant' and "id" = ? and "expires_at" < ?
          )`,
    params: [expiresAt, payload.exp, payload.grantId, expiresAt],
  };
}

/**
 * Persists the authorization server's records in PostgreSQL/PGlite (table `oauth_model`), so codes, tokens,
 * grants, sessions and registered clients survive restarts and are shared by every instance on the database.
 * Expired rows are invisible at once and deleted by `sweepExpiredOAuthModels` (housekeeping).
 */
export function oauthModelAdapterFactory(db: SqlDb, clock: () => Date, keyChanges?: Pick<KeyChangeFeed, 'propagate'>): (kind: string) => OAuthModelAdapter {
  const endConnection = async (grantId: string) => {
    const write = () =>
      db.all<ChangedKey>(`update "api_key" set "revoked_at" = ? where "oauth_grant_id" = ? and "revoked_at" is null returning "id", txid_current()::text as "txid"`, [
        clock().toISOString(),
        grantId,
      ]);
    // Like a key revocation: answered once every live instance dropped the connection.
    await (keyChanges ? keyChanges.propagate(write) : write());
  };
  return (kind) => {
    const credential = CREDENTIAL_KINDS.has(kind);
    const findWhere = async (condition: string, value: string): Promise<OAuthPayload | undefined> => {
      // Nothing is stored under a value the database cannot hold (U+0000): a lookup by one finds nothing, not an error.
      if (!isStorable(value)) return undefined;
      const extra = kind === 'Grant' ? ` and ${GRANT_NOT_REVOKED}` : '';
      const [row] = await db.all<Row>(`${SELECT} where "kind" = ? and ${condition} = ? and ${LIVE}${extra} limit 1`, [kind, value, clock().toISOString()]);
      return parsePayload(row);
    };
    return {
      async upsert(id, payload, expiresIn) {
        const { jti: _credential, ...kept } = payload;
        const stored = credential ? kept : kind === 'Interaction' ? withoutSessionId(payload) : payload;
        const expiresAt = expiresIn ? new Date(clock().getTime() + expiresIn * 1000).toISOString() : null;
        const extension = kind === 'RefreshToken' ? grantExtension(payload, expiresAt) : undefined;
        await db.all(
          `${extension?.sql ?? ''}
           insert into "oauth_model" ("kind", "id", "payload", "grant_id", "uid", "user_code", "expires_at")
           values (?, ?, ?::jsonb, ?, ?, ?, ?)
           on conflict ("kind", "id") do update set "payload" = excluded."payload", "grant_id" = excluded."grant_id",
             "uid" = excluded."uid", "user_code" = excluded."user_code", "expires_at" = excluded."expires_at"`,
          [...(extension?.params ?? []), kind, storedId(kind, id), JSON.stringify(stored), payload.grantId ?? null, payload.uid ?? null, payload.userCode ?? null, expiresAt],
        );
      },
      async find(id) {
        const found = await findWhere('"id"', storedId(kind, id));
        return found && credential ? { ...found, jti: id } : found;
      },
      findByUid: (uid) => findWhere('"uid"', uid),
      findByUserCode: (userCode) => findWhere('"user_code"', userCode),
      async consume(id) {
        await db.all(`update "oauth_model" set "consumed_at" = ? where "kind" = ? and "id" = ?`, [clock().toISOString(), kind, storedId(kind, id)]);
      },
      async destroy(id) {
        // The server drops a grant when its client revokes a refresh token (RFC 7009) or replays a rotated one: the
        // connection made from it ends too, so the key list never shows a live connection that can no longer work.
        if (kind === 'Grant') await endConnection(id);
        if (kind !== 'AccessToken') {
          await db.all(`delete from "oauth_model" where "kind" = ? and "id" = ?`, [kind, storedId(kind, id)]);
          return;
        }
        // A revoked access token may be cached by any instance: its deletion notifies its connection's change
        // (migration Migration20261125003000_access_token_changes), answered once every instance forgot it.
        const write = async () =>
          (
            await db.all<{ id: string | null; txid: string }>(
              `delete from "oauth_model" m where m."kind" = 'AccessToken' and m."id" = ?
               returning (select k."id" from "api_key" k where k."oauth_grant_id" = m."grant_id") as "id", txid_current()::text as "txid"`,
              [storedId(kind, id)],
            )
          ).filter((row): row is ChangedKey => row.id !== null);
        await (keyChanges ? keyChanges.propagate(write) : write());
      },
      async revokeByGrantId(grantId) {
        // On a code replay and after an access token's revocation: the grant's access tokens go too, and any instance
        // may cache them, so it answers (as `destroy` does) once every instance forgot the connection's tokens.
        const write = async () =>
          (
            await db.all<{ id: string | null; txid: string }>(
              `delete from "oauth_model" m where m."grant_id" = ?
               returning case when m."kind" = 'AccessToken' then (select k."id" from "api_key" k where k."oauth_grant_id" = m."grant_id") end as "id",
                 txid_current()::text as "txid"`,
              [grantId],
            )
          ).filter((row): row is ChangedKey => row.id !== null);
        await (keyChanges ? keyChanges.propagate(write) : write());
      },
    };
  };
}

/**
 * How long the expired grant of a connection nobody revoked is kept, dating its end in every key list. Past it,
 * housekeeping copies that end onto the connection (`api_key.expires_at`) and deletes the grant, so no row is kept
 * forever for a connection that can no longer be used (its dashboard row has no revoke button once expired).
 */
export const ENDED_CONNECTION_GRANT_RETENTION_DAYS = 90;
const DAY_MS = 86_400_000;

/**
 * Housekeeping: expired records and those of revoked connections are already refused; this only frees their rows
 * (but keeps the expired grant of a connection not revoked, which dates its end, for
 * ENDED_CONNECTION_GRANT_RETENTION_DAYS).
 * It also undoes what instances of an earlier version write during a rolling deploy (the migrations that cleaned up
 * ran once): sessions stored under their raw id (their payload keeps it as `jti`) are deleted, as
 * Migration20261125004000 did, interactions lose the session id they carry, and registration access tokens stored
 * without an end go 30 days after their issue (endOf), the end Migration20261125009000 gave the older ones.
 */
export async function sweepExpiredOAuthModels(db: SqlDb, clock: () => Date): Promise<void> {
  const now = clock();
  const retainedSince = new Date(now.getTime() - ENDED_CONNECTION_GRANT_RETENTION_DAYS * DAY_MS).toISOString();
  // The connection keeps its end once its grant is gone; it ended, nobody revoked it.
  await db.all(
    `update "api_key" k set "expires_at" = g."expires_at" from "oauth_model" g
       where g."kind" = 'Grant' and g."id" = k."oauth_grant_id" and k."revoked_at" is null and k."expires_at" is null and g."expires_at" <= ?`,
    [retainedSince],
  );
  await db.all(
    `delete from "oauth_model" m where (${endOf('m')} <= ? or (m."kind" = 'Session' and m."payload"->'jti' is not null))
       and not (m."kind" = 'Grant' and m."expires_at" > ? and exists (select 1 from "api_key" k where k."oauth_grant_id" = m."id" and k."revoked_at" is null))`,
    [now.toISOString(), retainedSince],
  );
  await db.all(`update "oauth_model" set "payload" = "payload" #- '{session,cookie}' where "kind" = 'Interaction' and "payload"->'session'->'cookie' is not null`);
  await db.all(
    `delete from "oauth_model" m using "api_key" k where k."revoked_at" is not null and k."oauth_grant_id" is not null
       and (m."grant_id" = k."oauth_grant_id" or (m."kind" = 'Grant' and m."id" = k."oauth_grant_id"))`,
  );
}
