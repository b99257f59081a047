import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIGN_UPS_PER_ADDRESS, SignUpThrottled } from '../../adapters/people/sign-in-throttle.ts';
import { startTestService, type TestService } from '../support/service.ts';

/**
 * Per-address limits count an IPv6 client by its /64 and an IPv4-mapped one as its IPv4 address
 * (adapters/identity/address-key.ts), here through the service's own sign-up and its database. Loopback has one IPv6
 * address, so the addresses are handed to the store as the dashboard hands it the socket's.
 */
let svc: TestService;
let n = 0;

beforeAll(async () => {
  svc = await startTestService({ jobs: { autostart: false } });
});
afterAll(async () => {
  await svc?.close();
});

const signUp = (address: string) => svc.service.people.signUp({ email: `p${n++}@example.com`, password: 'correct horse battery', address });

describe('per-address limits', () => {
  it('count every address of an IPv6 /64 as one, and another /64 apart', async () => {
    for (let i = 0; i < SIGN_UPS_PER_ADDRESS; i++) await signUp(`2001:db8:7:1::${(i + 1).toString(16)}`);
    await expect(signUp('2001:db8:7:1:ffff:ffff:ffff:ffff')).rejects.toBeInstanceOf(SignUpThrottled);
    await expect(signUp('2001:db8:7:2::1')).resolves.toBeDefined();
  });

  it('count an IPv4-mapped address as its IPv4 address', async () => {
    for (let i = 0; i < SIGN_UPS_PER_ADDRESS; i++) await signUp(i % 2 ? '198.51.100.9' : '::ffff:198.51.100.9');
    await expect(signUp('198.51.100.9')).rejects.toBeInstanceOf(SignUpThrottled);
    await expect(signUp('::ffff:198.51.100.9')).rejects.toBeInstanceOf(SignUpThrottled);
    await expect(signUp('198.51.100.10')).resolves.toBeDefined();
  });
});
