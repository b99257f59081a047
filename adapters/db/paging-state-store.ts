import { randomUUID } from 'node:crypto';
import type { Orm } from './orm.ts';

/** How long stored paging state lives: a client walking pages slower than this starts again. */
const PAGING_STATE_TTL_MS = 24 * 3_600_000;
/** Expired rows each `put` deletes: housekeeping spread over the writes that cause it. */
const SWEEP_PER_PUT = 20;

export interface PagingStateStore {
  /** Keeps `state` and returns its id. */
  put(state: unknown): Promise<string>;
  /** The state stored under `id`, or undefined when unknown or expired. */
  get(id: string): Promise<unknown>;
  /** Deletes every expired state (housekeeping); returns how many. */
  sweep(): Promise<number>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function createPagingStateStore(orm: Orm, now: () => Date = () => new Date()): PagingStateStore {
  const connection = orm.em.getConnection();
  return {
    async put(state) {
      const id = randomUUID();
      const at = now();
      await connection.execute(
        `delete from "paging_state" where "id" in (select "id" from "paging_state" where "expires_at" <= ? limit ${SWEEP_PER_PUT})`,
        [at.toISOString()],
      );
      await connection.execute(`insert into "paging_state" ("id", "state", "expires_at") values (?, ?, ?)`, [
        id,
        JSON.stringify(state),
        new Date(at.getTime() + PAGING_STATE_TTL_MS).toISOString(),
      ]);
      return id;
    },
    async sweep() {
      const rows = await connection.execute<{ id: string }[]>(`delete from "paging_state" where "expires_at" <= ? returning "id"`, [now().toISOString()], 'all');
      return rows.length;
    },
    async get(id) {
      if (!UUID.test(id)) return undefined;
      const rows = await connection.execute<{ state: unknown }[]>(`select "state" from "paging_state" where "id" = ? and "expires_at" > ?`, [id, now().toISOString()], 'all');
      const state = rows[0]?.state;
      return typeof state === 'string' ? JSON.parse(state) : state;
    },
  };
}
