import { describe, expect, it } from 'vitest';
import type { IdempotencyStore, StoredResponse } from '../../adapters/db/idempotency-store.ts';
import { idempotent } from '../../schema/pipeline/idempotency.ts';

/** A store holding one key, whose `complete` refuses the first `refusals` answers it is given. */
function refusingStore(refusals: number) {
  const kept: StoredResponse[] = [];
  const released: string[] = [];
  let stored: StoredResponse | undefined;
  let refused = 0;
  const store: IdempotencyStore = {
    claim: async () => (stored ? { kind: 'replay', response: stored } : { kind: 'new' }),
    complete: async (_scope, _key, response) => {
      if (refused++ < refusals) throw new Error('invalid input syntax for type json');
      kept.push(response);
      stored = response;
    },
    release: async (_scope, key) => {
      released.push(key);
    },
    sweep: async () => 0,
  };
  return { store, kept, released };
}

describe('an answer that cannot be kept under its Idempotency-Key', () => {
  const answer = { status: 201, headers: { 'x-credits-charged': '4' }, body: { data: ['a\u0000b'] }, isError: false };
  const claim = { scope: 'ws', key: 'k1', hash: 'h', requestId: 'req_1' };

  it('is given all the same (the work is done and charged), and a marker holds the key: a retry is not run again', async () => {
    const { store, kept, released } = refusingStore(1);
    let runs = 0;
    const run = async () => {
      runs++;
      return answer;
    };
    expect(await idempotent(store, claim, run)).toBe(answer);
    expect(released).toEqual([]);
    expect(kept).toHaveLength(1);
    const retry = await idempotent(store, { ...claim, requestId: 'req_2' }, run);
    expect(runs).toBe(1);
    expect(retry.status).toBe(409);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.body).toMatchObject({
      error: { code: 'conflict', retryable: false, details: { field: 'Idempotency-Key', reason: 'answer_not_kept', status: 201 } },
      meta: { requestId: 'req_1' },
    });
  });

  it('leaves the key claimed when even the marker cannot be stored (in progress until abandoned, as after a crash)', async () => {
    const { store, kept, released } = refusingStore(2);
    expect(await idempotent(store, claim, async () => answer)).toBe(answer);
    expect(kept).toEqual([]);
    expect(released).toEqual([]);
  });
});
