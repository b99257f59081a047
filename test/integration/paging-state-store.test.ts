import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initOrm, type Orm } from '../../adapters/db/orm.ts';
import { createPagingStateStore } from '../../adapters/db/paging-state-store.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

/** The paging-state store on the real database (PostgreSQL with TEST_DATABASE_URL, PGlite otherwise). */
let db: TestDatabase;
let orm: Orm;
let clock = new Date('2026-06-01T00:00:00Z');

beforeAll(async () => {
  db = await createTestDatabase();
  orm = await initOrm({ databaseUrl: db.databaseUrl, dataDir: db.dataDir });
});
afterAll(async () => {
  await orm?.close(true);
  await db?.drop();
});

describe(`paging state store (${process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite'})`, () => {
  it('keeps state for a day under a random id, then forgets it', async () => {
    const store = createPagingStateStore(orm, () => clock);
    const state = { q: [{ p: 't1_abc', d: 2, f: 'def' }], big: 'é'.repeat(5000) };
    const id = await store.put(state);
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(await store.get(id)).toEqual(state);
    expect(await store.get('not-an-id')).toBeUndefined();
    expect(await store.get(crypto.randomUUID())).toBeUndefined();

    clock = new Date(clock.getTime() + 24 * 3_600_000 + 1);
    expect(await store.get(id)).toBeUndefined();
    // The next write sweeps it away.
    await store.put({ other: true });
    const rows = await orm.em.getConnection().execute<{ n: number }[]>('select count(*)::int as n from "paging_state" where "id" = ?', [id], 'all');
    expect(rows[0].n).toBe(0);
  });
});
