import { describe, expect, it } from 'vitest';
import type { IdempotencyStore } from '../../adapters/db/idempotency-store.ts';
import { idempotent } from '../../schema/pipeline/idempotency.ts';

describe('an answer that cannot be kept under its Idempotency-Key', () => {
  it('is given all the same (the work is done and charged), and the key is freed as after a 5xx', async () => {
    const released: string[] = [];
    const store: IdempotencyStore = {
      claim: async () => ({ kind: 'new' }),
      complete: async () => {
        throw new Error('invalid input syntax for type json');
      },
      release: async (_scope, key) => {
        released.push(key);
      },
      sweep: async () => 0,
    };
    const answer = { status: 200, headers: { 'x-credits-charged': '4' }, body: { data: ['a\u0000b'] }, isError: false };
    const response = await idempotent(store, { scope: 'ws', key: 'k1', hash: 'h', requestId: 'req_1' }, async () => answer);
    expect(response).toBe(answer);
    expect(released).toEqual(['k1']);
  });
});
