import { afterEach, describe, expect, it, vi } from 'vitest';
import { createAckTracker, keyIdOfChange } from '../../../adapters/identity/key-change-acks.ts';

describe('key change acknowledgements', () => {
  afterEach(() => vi.useRealTimers());

  it('answers once every listed instance acknowledged every change, counting acknowledgements that beat the write', async () => {
    const tracker = createAckTracker();
    let answered = false;
    const waiting = tracker
      .awaitApplied(['a', 'b'], async () => {
        tracker.acknowledged('a', 'k1:7');
        return [{ id: 'k1', txid: '7' }];
      }, 2_000)
      .then((result) => ((answered = true), result));
    await Promise.resolve();
    tracker.acknowledged('b', 'k1:6');
    await Promise.resolve();
    expect(answered).toBe(false);
    tracker.acknowledged('b', 'k1:7');
    expect(await waiting).toEqual({ changed: [{ id: 'k1', txid: '7' }], missing: [] });
  });

  it('answers after the timeout when an instance never acknowledges, naming it', async () => {
    vi.useFakeTimers();
    const tracker = createAckTracker();
    const waiting = tracker.awaitApplied(['a', 'b'], async () => [{ id: 'k1', txid: '7' }], 2_000);
    await vi.advanceTimersByTimeAsync(0);
    tracker.acknowledged('a', 'k1:7');
    await vi.advanceTimersByTimeAsync(2_000);
    expect(await waiting).toMatchObject({ missing: ['b'] });
  });

  it('waits for nothing when the write changed no key', async () => {
    const tracker = createAckTracker();
    expect(await tracker.awaitApplied(['a'], async () => [], 2_000)).toEqual({ changed: [], missing: [] });
  });

  it('reads the key id from a change id', () => {
    expect(keyIdOfChange('0d6f-uuid:123')).toBe('0d6f-uuid');
  });
});
