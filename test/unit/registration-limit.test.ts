import { describe, expect, it } from 'vitest';
import { createRegistrationLimit } from '../../adapters/oauth/registration-limit.ts';

describe('the open client registration limit', () => {
  it('lets an address register its hourly allowance, then says how long to wait; other addresses are not affected', async () => {
    const wait = createRegistrationLimit(3);
    expect([await wait('10.0.0.1'), await wait('10.0.0.1'), await wait('10.0.0.1')]).toEqual([0, 0, 0]);
    const fourth = await wait('10.0.0.1');
    expect(fourth).toBeGreaterThan(3000);
    expect(fourth).toBeLessThanOrEqual(3600);
    expect(await wait('10.0.0.2')).toBe(0);
  });

  it('counts an IPv6 client by its /64 (docs/mcp-auth.md)', async () => {
    const wait = createRegistrationLimit(2);
    expect([await wait('2001:db8::1'), await wait('2001:db8::2:1')]).toEqual([0, 0]);
    expect(await wait('2001:db8::ffff:1')).toBeGreaterThan(0);
    expect(await wait('2001:db8:0:1::1')).toBe(0);
  });
});
