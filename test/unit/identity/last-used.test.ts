import { describe, expect, it } from 'vitest';
import { LAST_USED_RESOLUTION_MS, throttledLastUsed } from '../../../adapters/identity/last-used.ts';

describe('the last-used throttle of keys and connections', () => {
  it('writes a principal’s use at most once per resolution, each principal on its own', async () => {
    const writes: string[] = [];
    const recordUse = throttledLastUsed(async (keyId, now) => void writes.push(`${keyId}@${now.getTime()}`));
    const t0 = Date.parse('2026-11-25T00:00:00Z');
    await recordUse('a', new Date(t0));
    await recordUse('a', new Date(t0 + LAST_USED_RESOLUTION_MS - 1));
    await recordUse('b', new Date(t0 + 1));
    await recordUse('a', new Date(t0 + LAST_USED_RESOLUTION_MS));
    expect(writes).toEqual([`a@${t0}`, `b@${t0 + 1}`, `a@${t0 + LAST_USED_RESOLUTION_MS}`]);
  });
});
