import type { SqlDb } from './sql.ts';

/** A response as it was first given, to give again. */
export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

export type IdempotencyClaim =
  | { kind: 'new' }
  | { kind: 'replay'; response: StoredResponse }
  /** The key was used for a different request. */
  | { kind: 'mismatch' }
  /** The first request with this key is still being answered. */
  | { kind: 'in_progress' };

export interface IdempotencyStore {
  claim(scope: string, key: string, requestHash: string): Promise<IdempotencyClaim>;
  complete(scope: string, key: string, response: StoredResponse): Promise<void>;
  /** The first request failed in a way worth retrying (a 5xx, a crash): the key is free again. */
  release(scope: string, key: string): Promise<void>;
  /** Deletes keys older than a day (housekeeping); returns how many. */
  sweep(): Promise<number>;
}

/** Keys are kept this long, as Stripe does. */
export const IDEMPOTENCY_TTL_MS = 24 * 3_600_000;
/** A claim whose request never completed (its process died) is free again after this. */
const ABANDONED_AFTER_MS = 60_000;

interface Row {
  request_hash: string;
  status: number | null;
  headers: unknown;
  body: unknown;
}

const parsed = <T>(value: unknown): T => (typeof value === 'string' ? JSON.parse(value) : value) as T;

export function createIdempotencyStore(db: SqlDb, clock: () => Date): IdempotencyStore {
  return {
    async claim(scope, key, requestHash) {
      const now = clock();
      // A claim left by a request that never finished, or a key past its day, is taken over.
      await db.all(
        `delete from "idempotency_key" where "scope" = ? and "key" = ? and ("created_at" <= ? or ("status" is null and "created_at" <= ?))`,
        [scope, key, new Date(now.getTime() - IDEMPOTENCY_TTL_MS).toISOString(), new Date(now.getTime() - ABANDONED_AFTER_MS).toISOString()],
      );
      const inserted = await db.all(
        `insert into "idempotency_key" ("scope", "key", "request_hash", "created_at") values (?, ?, ?, ?) on conflict do nothing returning "key"`,
        [scope, key, requestHash, now.toISOString()],
      );
      if (inserted.length) return { kind: 'new' };
      const [row] = await db.all<Row>(`select "request_hash", "status", "headers", "body" from "idempotency_key" where "scope" = ? and "key" = ?`, [scope, key]);
      if (!row) return this.claim(scope, key, requestHash);
      if (row.request_hash !== requestHash) return { kind: 'mismatch' };
      if (row.status === null) return { kind: 'in_progress' };
      return { kind: 'replay', response: { status: row.status, headers: parsed<Record<string, string>>(row.headers) ?? {}, body: parsed(row.body) } };
    },
    async complete(scope, key, response) {
      // The body as JSON text, not jsonb: it keeps a U+0000 from a platform, and the replay is the first answer's bytes.
      await db.all(`update "idempotency_key" set "status" = ?, "headers" = ?::jsonb, "body" = ? where "scope" = ? and "key" = ?`, [
        response.status,
        JSON.stringify(response.headers),
        JSON.stringify(response.body ?? null),
        scope,
        key,
      ]);
    },
    async release(scope, key) {
      await db.all(`delete from "idempotency_key" where "scope" = ? and "key" = ? and "status" is null`, [scope, key]);
    },
    async sweep() {
      // Also answers kept with a secret shown once: Migration20261125005000 deleted them once, but during a rolling
      // deploy instances of the version before it still keep them; this goes on deleting what such writers leave.
      // Those wrote jsonb, whose text spells a member `"name": ` (a space), which JSON.stringify never writes: only such
      // bodies are read as jsonb (a case, so the cast never meets one it would refuse, such as a `\u0000` escape).
      const rows = await db.all(
        `delete from "idempotency_key" where "created_at" <= ?
           or case when "body" like '%"secret": %' or ("scope" = 'operator' and "body" like '%"key": %')
             then "body"::jsonb->'data'->'secret' is not null or ("scope" = 'operator' and "body"::jsonb->'data'->'key' is not null) else false end
           returning "key"`,
        [new Date(clock().getTime() - IDEMPOTENCY_TTL_MS).toISOString()],
      );
      return rows.length;
    },
  };
}
