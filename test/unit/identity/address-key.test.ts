import { describe, expect, it } from 'vitest';
import { addressKey } from '../../../adapters/identity/address-key.ts';

describe('the key a per-address limit counts a client under', () => {
  it('is an IPv6 address’s /64, however it is written', () => {
    expect(addressKey('2001:db8:1:2:3:4:5:6')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:db8:1:2::ffff')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:0DB8:0001:0002:0000:0000:0000:0001')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64');
    expect(addressKey('fe80::1%eth0')).toBe('fe80::/64');
    expect(addressKey('::1')).toBe('::/64');
  });

  it('is an IPv4 address as it is, also when a dual-stack listener sees it IPv4-mapped', () => {
    expect(addressKey('192.0.2.7')).toBe('192.0.2.7');
    expect(addressKey('::ffff:192.0.2.7')).toBe('192.0.2.7');
    expect(addressKey('::ffff:c000:207')).toBe('192.0.2.7');
  });

  it('keeps anything else as it is', () => {
    expect(addressKey('unknown')).toBe('unknown');
  });
});
