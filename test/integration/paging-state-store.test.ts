import { describe, expect, it } from 'vitest';
import { createPagingStateStore } from '../../adapters/db/paging-state-store.ts';
import { useMigratedOrm } from '../support/migrated-orm.ts';

/** The paging-state store on the real database (PostgreSQL with TEST_DATABASE_URL, PGlite otherwise). */
const migrated = useMigratedOrm();
let clock = new Date('2026-06-01T00:00:00Z');

describe(`paging state store (${process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite'})`, () => {
  it('keeps state for a day under a random id, then forgets it', async () => {
    const store = createPagingStateStore(migrated.orm, () => clock);
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
    const rows = await migrated.orm.em.getConnection().execute<{ n: number }[]>('select count(*)::int as n from "paging_state" where "id" = ?', [id], 'all');
    expect(rows[0].n).toBe(0);
  });

  it('keeps platform text the database could not hold as such (U+0000, a lone surrogate), as it was', async () => {
    const store = createPagingStateStore(migrated.orm, () => clock);
    const state = { q: [{ p: 't1_a\u0000b', after: 'x\ud800y' }] };
    expect(await store.get(await store.put(state))).toEqual(state);
  });
});
