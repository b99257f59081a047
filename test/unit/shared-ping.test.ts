import { describe, expect, it } from 'vitest';
import { READINESS_ANSWER_MS, sharedPing, type Orm } from '../../adapters/db/orm.ts';

/** An ORM whose pings wait until the test answers them. */
function pendingOrm() {
  const pings: Array<(ok: boolean) => void> = [];
  const execute = () => new Promise((resolve, reject) => pings.push((ok) => (ok ? resolve([{ ok: 1 }]) : reject(new Error('gone')))));
  return { orm: { em: { getConnection: () => ({ execute }) } } as unknown as Orm, pings };
}

describe('the readiness probe', () => {
  it('checks asked for while a ping is under way share it: one round trip, one answer for all', async () => {
    const { orm, pings } = pendingOrm();
    const probe = sharedPing(orm);
    const answers = Promise.all([probe(), probe(), probe()]);
    expect(pings).toHaveLength(1);
    pings[0]!(true);
    expect(await answers).toEqual([true, true, true]);
  });

  it('gives an answer again for a second without a round trip, then pings again, so a database gone since reads as not ready', async () => {
    const { orm, pings } = pendingOrm();
    let nowMs = 0;
    const probe = sharedPing(orm, { now: () => nowMs });
    const first = probe();
    pings[0]!(true);
    expect(await first).toBe(true);
    nowMs = READINESS_ANSWER_MS - 1;
    // Before: a round trip per check (security review h, F3: 300 a second from one address).
    expect(await probe()).toBe(true);
    expect(pings).toHaveLength(1);
    nowMs = READINESS_ANSWER_MS;
    const second = probe();
    expect(pings).toHaveLength(2);
    pings[1]!(false);
    expect(await second).toBe(false);
  });
});
