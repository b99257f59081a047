import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServiceProcess, type ServiceProcess } from '../support/service-process.ts';
import { startTestService, type TestService } from '../support/service.ts';

/**
 * Two instances on one PostgreSQL, the second in a process of its own: each caches keys in memory, and a key revoked
 * through either is refused by the other on its very next call (issue 13).
 */
describe.runIf(process.env.TEST_DATABASE_URL)('revocation across instances', () => {
  let svc: TestService;
  let other: ServiceProcess;

  beforeAll(async () => {
    svc = await startTestService();
    other = await startServiceProcess(svc);
  }, 120_000);
  afterAll(async () => {
    await other?.stop();
    await svc?.close();
  });

  const whoami = async (base: string, key: string) => (await fetch(`${base}/v1/whoami`, { headers: { authorization: `Bearer ${key}` } })).status;
  const revokeOnOther = async (keyId: string) =>
    (await fetch(`${other.operatorUrl}/operator/keys/${keyId}/revoke`, { method: 'POST', headers: { authorization: `Bearer ${other.operatorToken}` } })).status;

  it('a key revoked through this instance is refused by the other process on its next call', async () => {
    for (let round = 0; round < 5; round++) {
      const { key, keyId } = await svc.newKey();
      // Both instances have the key cached: the next calls answer from memory.
      expect(await whoami(other.url, key)).toBe(200);
      expect(await whoami(other.url, key)).toBe(200);
      expect(await whoami(svc.url, key)).toBe(200);
      expect((await svc.operator('POST', `/operator/keys/${keyId}/revoke`)).status).toBe(200);
      const refused = await fetch(`${other.url}/v1/whoami`, { headers: { authorization: `Bearer ${key}` } });
      expect(refused.status).toBe(401);
      expect(((await refused.json()) as { error: { details: { reason: string } } }).error.details.reason).toBe('revoked');
      expect(await whoami(svc.url, key)).toBe(401);
    }
  });

  it('a key revoked through the other process is refused by this instance on its next call', async () => {
    for (let round = 0; round < 5; round++) {
      const { key, keyId } = await svc.newKey();
      expect(await whoami(svc.url, key)).toBe(200);
      expect(await whoami(svc.url, key)).toBe(200);
      expect(await whoami(other.url, key)).toBe(200);
      expect(await revokeOnOther(keyId)).toBe(200);
      expect(await whoami(svc.url, key)).toBe(401);
      expect(await whoami(other.url, key)).toBe(401);
    }
  });
});
