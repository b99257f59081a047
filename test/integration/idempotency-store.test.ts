import { describe, expect, it } from 'vitest';
import { createIdempotencyStore, IDEMPOTENCY_TTL_MS } from '../../adapters/db/idempotency-store.ts';
import { sqlDbFromOrm } from '../../adapters/db/sql.ts';
import { useMigratedOrm } from '../support/migrated-orm.ts';

/** The Idempotency-Key store on the real database, on an injected clock: how long a key holds, and when it frees. */
const migrated = useMigratedOrm();
let clock = new Date('2026-06-01T00:00:00Z');
const later = (ms: number) => {
  clock = new Date(clock.getTime() + ms);
};
const first = { status: 201, headers: { 'x-credits-charged': '0' }, body: { data: { id: 'w1' } } };

describe(`idempotency keys (${process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite'})`, () => {
  it('replay the first response for a day, refuse another request meanwhile, and are free again after 24 h', async () => {
    const store = createIdempotencyStore(sqlDbFromOrm(migrated.orm), () => clock);
    expect(await store.claim('ws-1', 'key-a', 'hash-1')).toEqual({ kind: 'new' });
    expect(await store.claim('ws-1', 'key-a', 'hash-1')).toEqual({ kind: 'in_progress' });
    await store.complete('ws-1', 'key-a', first);
    // Keys belong to their scope: another account's same key is its own.
    expect(await store.claim('ws-2', 'key-a', 'hash-9')).toEqual({ kind: 'new' });

    later(IDEMPOTENCY_TTL_MS - 1_000);
    expect(await store.claim('ws-1', 'key-a', 'hash-1')).toEqual({ kind: 'replay', response: first });
    expect(await store.claim('ws-1', 'key-a', 'hash-2')).toEqual({ kind: 'mismatch' });
    expect(await store.sweep()).toBe(0);

    later(1_000);
    expect(await store.sweep()).toBe(2);
    expect(await store.claim('ws-1', 'key-a', 'hash-2')).toEqual({ kind: 'new' });
    expect(IDEMPOTENCY_TTL_MS).toBe(86_400_000);
  });

  it('free a key whose first request failed or whose process died', async () => {
    const store = createIdempotencyStore(sqlDbFromOrm(migrated.orm), () => clock);
    expect(await store.claim('ws-3', 'key-b', 'hash-1')).toEqual({ kind: 'new' });
    await store.release('ws-3', 'key-b');
    expect(await store.claim('ws-3', 'key-b', 'hash-1')).toEqual({ kind: 'new' });
    // Never completed: after a minute the claim is abandoned and taken over.
    later(59_000);
    expect(await store.claim('ws-3', 'key-b', 'hash-1')).toEqual({ kind: 'in_progress' });
    later(1_000);
    expect(await store.claim('ws-3', 'key-b', 'hash-1')).toEqual({ kind: 'new' });
  });
});
