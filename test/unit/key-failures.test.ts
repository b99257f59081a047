import { describe, expect, it } from 'vitest';
import { createKeyFailures } from '../../adapters/identity/key-failures.ts';

describe('bad credentials counted per address and per instance', () => {
  const rules = { perAddress: 3, perInstance: 5, windowMs: 60_000 };

  it('refuses an address past its limit until its window ends, an IPv6 client by its /64', () => {
    const failures = createKeyFailures(rules);
    for (let i = 0; i < 3; i++) failures.failed(`2001:db8:1:2::${i + 1}`, 0);
    expect(failures.refusal('2001:db8:1:2::ffff', 1_000)).toEqual({ per: 'address', limit: 3, retryAfterSeconds: 59 });
    expect(failures.refusal('2001:db8:1:3::1', 1_000)).toBeUndefined();
    expect(failures.refusal('2001:db8:1:2::1', 60_000)).toBeUndefined();
  });

  it('refuses everyone past the instance limit, however many addresses sent them, until its window ends', () => {
    const failures = createKeyFailures(rules);
    // One /64 each: no address reaches its own limit (the review's /48 of 65,536 /64s).
    for (let i = 0; i < 5; i++) failures.failed(`2001:db8:48:${i.toString(16)}::1`, 0);
    expect(failures.refusal('192.0.2.1', 30_000)).toEqual({ per: 'instance', limit: 5, retryAfterSeconds: 30 });
    expect(failures.refusal('192.0.2.1', 60_000)).toBeUndefined();
  });

  it('forgets ended windows as new failures come, so an address starts afresh', () => {
    const failures = createKeyFailures(rules);
    for (let i = 0; i < 3; i++) failures.failed('192.0.2.9', 0);
    failures.failed('192.0.2.10', 60_000);
    expect(failures.refusal('192.0.2.9', 60_001)).toBeUndefined();
    for (let i = 0; i < 2; i++) failures.failed('192.0.2.9', 60_001);
    expect(failures.refusal('192.0.2.9', 60_002)).toBeUndefined();
  });
});
