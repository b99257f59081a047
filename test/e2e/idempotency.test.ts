import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';

let svc: TestService;
let key: string;

beforeAll(async () => {
  svc = await startTestService({ tiers: { free: { rateLimitPerMinute: 100_000 } } });
  ({ key } = await svc.newKey({ scopes: ['read:social', 'monitors:write', 'usage:read'] }));
});
afterAll(async () => {
  await svc?.close();
});

describe('Idempotency-Key', () => {
  it('answers a retried creation with the first response, creating nothing twice', async () => {
    const idem = randomUUID();
    const body = { name: 'once', target: { kind: 'search', keywords: 'rust' }, schedule: 'manual' };
    const first = await svc.request('POST', '/v1/monitors', { key, body, headers: { 'idempotency-key': idem } });
    const again = await svc.request('POST', '/v1/monitors', { key, body, headers: { 'idempotency-key': idem } });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body.data.id).toBe(first.body.data.id);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const named = (await svc.request('GET', '/v1/monitors', { key })).body.data.filter((m: { name: string }) => m.name === 'once');
    expect(named).toHaveLength(1);
  });

  it('refuses the same key for a different request with 409', async () => {
    const idem = randomUUID();
    await svc.request('POST', '/v1/monitors', { key, body: { name: 'a', target: { kind: 'search', keywords: 'rust' }, schedule: 'manual' }, headers: { 'idempotency-key': idem } });
    const other = await svc.request('POST', '/v1/monitors', { key, body: { name: 'b', target: { kind: 'search', keywords: 'rust' }, schedule: 'manual' }, headers: { 'idempotency-key': idem } });
    expect(other.status).toBe(409);
    expect(other.body.error.details).toMatchObject({ field: 'Idempotency-Key', reason: 'key_reused' });
  });

  it('bills a retried paid call once', async () => {
    // An account of its own: the monitors above run (and spend) on theirs.
    const reader = await svc.newKey({ scopes: ['read:social', 'usage:read'] });
    const balanceOf = async () => (await svc.request('GET', '/v1/usage', { key: reader.key })).body.data.balance as number;
    const idem = randomUUID();
    const before = await balanceOf();
    const first = await svc.request('POST', '/v1/forum/search', { key: reader.key, body: { query: 'forum', limit: 5 }, headers: { 'idempotency-key': idem } });
    const again = await svc.request('POST', '/v1/forum/search', { key: reader.key, body: { query: 'forum', limit: 5 }, headers: { 'idempotency-key': idem } });
    expect(Number(first.headers.get('x-credits-charged'))).toBeGreaterThan(0);
    expect(again.headers.get('x-credits-charged')).toBe('0');
    expect(again.body.data).toEqual(first.body.data);
    expect(before - (await balanceOf())).toBe(Number(first.headers.get('x-credits-charged')));
  });

  it('names the header when the key is malformed', async () => {
    const res = await svc.request('POST', '/v1/forum/search', { key, body: { query: 'forum' }, headers: { 'idempotency-key': 'x'.repeat(256) } });
    expect(res.status).toBe(400);
    expect(res.body.error.details.field).toBe('Idempotency-Key');
  });

  it('never books a retried operator purchase twice', async () => {
    const buyer = await svc.newKey({ scopes: ['usage:read'] });
    const balance = async () => (await svc.request('GET', '/v1/usage', { key: buyer.key })).body.data.balance as number;
    const idem = randomUUID();
    const purchase = (body: unknown) =>
      fetch(`${svc.service.operatorUrl}/operator/workspaces/${buyer.workspaceId}/purchases`, {
        method: 'POST',
        headers: { authorization: 'Bearer test-operator-token-0123456789abcdef', 'content-type': 'application/json', 'idempotency-key': idem },
        body: JSON.stringify(body),
      });
    const before = await balance();
    expect((await purchase({ usdCents: 500, credits: 1000 })).status).toBe(201);
    const retried = await purchase({ usdCents: 500, credits: 1000 });
    expect(retried.status).toBe(201);
    expect(retried.headers.get('idempotent-replayed')).toBe('true');
    expect((await balance()) - before).toBe(1000);
    expect((await purchase({ usdCents: 900, credits: 1000 })).status).toBe(409);
  });
});
