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

  /** Every stored answer, as text: what an idempotency replay could give back. */
  const storedAnswers = async () =>
    JSON.stringify(await svc.service.orm.em.getConnection().execute(`select "headers", "body" from "idempotency_key"`, [], 'all'));

  it('never keeps or repeats a webhook signing secret: the replay is 409 secret_shown_once naming the webhook', async () => {
    const owner = await svc.newKey({ scopes: ['webhooks:write'] });
    const idem = randomUUID();
    const body = { name: 'shown once', url: 'http://127.0.0.1:9/hook' };
    const first = await svc.request('POST', '/v1/webhooks', { key: owner.key, body, headers: { 'idempotency-key': idem } });
    expect(first.status).toBe(201);
    expect(first.body.data.secret).toMatch(/^whsec_/);
    expect(await storedAnswers()).not.toContain(first.body.data.secret);
    const again = await svc.request('POST', '/v1/webhooks', { key: owner.key, body, headers: { 'idempotency-key': idem } });
    expect(again.status).toBe(409);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.error.details).toEqual({ field: 'Idempotency-Key', reason: 'secret_shown_once', id: first.body.data.id });
    expect(JSON.stringify(again.body)).not.toContain(first.body.data.secret);
    const listed = (await svc.request('GET', '/v1/webhooks', { key: owner.key })).body.data as Array<{ name: string }>;
    expect(listed.filter((webhook) => webhook.name === 'shown once')).toHaveLength(1);
  });

  it('gives a stored answer only to a key holding the operation\'s scope: another key of the account without it gets 403', async () => {
    const writer = await svc.newKey({ scopes: ['read:social', 'monitors:write'] });
    const reader = await svc.newKey({ scopes: ['read:social'], workspaceId: writer.workspaceId });
    const idem = randomUUID();
    const body = { name: 'scoped replay', target: { kind: 'search', keywords: 'rust' }, schedule: 'manual' };
    expect((await svc.request('POST', '/v1/monitors', { key: writer.key, body, headers: { 'idempotency-key': idem } })).status).toBe(201);
    const replayed = await svc.request('POST', '/v1/monitors', { key: reader.key, body, headers: { 'idempotency-key': idem } });
    expect(replayed.status).toBe(403);
    expect(replayed.body.error.code).toBe('insufficient_scope');
    expect(replayed.headers.get('idempotent-replayed')).toBeNull();
    // The holder of the scope still gets the first answer.
    expect((await svc.request('POST', '/v1/monitors', { key: writer.key, body, headers: { 'idempotency-key': idem } })).headers.get('idempotent-replayed')).toBe('true');
  });

  it('never keeps a new operator key in the clear: its replay is 409 secret_shown_once naming the key, audited once', async () => {
    const { workspaceId } = await svc.newKey({ scopes: ['usage:read'] });
    const idem = randomUUID();
    const create = () =>
      fetch(`${svc.service.operatorUrl}/operator/keys`, {
        method: 'POST',
        headers: { authorization: 'Bearer test-operator-token-0123456789abcdef', 'content-type': 'application/json', 'idempotency-key': idem },
        body: JSON.stringify({ workspaceId, scopes: ['read:social'] }),
      });
    const first = await create();
    expect(first.status).toBe(201);
    const created = ((await first.json()) as { data: { id: string; key: string } }).data;
    expect(await storedAnswers()).not.toContain(created.key);
    const again = await create();
    expect(again.status).toBe(409);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const refused = (await again.json()) as { error: { details: unknown } };
    expect(refused.error.details).toEqual({ field: 'Idempotency-Key', reason: 'secret_shown_once', id: created.id });
    expect(JSON.stringify(refused)).not.toContain(created.key);
    // The replay created nothing: the operator's record holds the one creation, not a second action.
    const audit = (await svc.operator('GET', '/operator/audit')).body.data as Array<{ action: string; workspaceId: string | null; status: number }>;
    expect(audit.filter((entry) => entry.workspaceId === workspaceId).map((entry) => [entry.action, entry.status])).toEqual([['POST /operator/keys', 201]]);
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
