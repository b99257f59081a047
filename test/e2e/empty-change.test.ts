import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';

/** A PATCH naming nothing to change is a 400 saying what it may name, and changes nothing (updatedAt included). */
let svc: TestService;
let key: string;

beforeAll(async () => {
  svc = await startTestService({ tiers: { free: { rateLimitPerMinute: 100_000 } } });
  ({ key } = await svc.newKey({ scopes: ['read:social', 'monitors:write', 'webhooks:write'] }));
});
afterAll(async () => {
  await svc?.close();
});

describe('an empty change', () => {
  it('of a monitor, with no body, {} or only nulls, is 400 naming the members it may change; the monitor is untouched', async () => {
    const created = await svc.request('POST', '/v1/monitors', { key, body: { name: 'unchanged', target: { kind: 'search', keywords: 'rust' }, schedule: 'manual' } });
    expect(created.status).toBe(201);
    const path = `/v1/monitors/${created.body.data.id}`;
    for (const body of [undefined, {}, { name: null }]) {
      const refused = await svc.request('PATCH', path, { key, body });
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.body.error.code).toBe('invalid_request');
      expect(refused.body.error.message).toMatch(/^Send at least one of 'name', 'target', 'sources', 'schedule', 'webhookId', 'status'/);
      expect(refused.body.error.details.field).toBeNull();
    }
    const after = await svc.request('GET', path, { key });
    expect(after.body.data.updatedAt).toBe(created.body.data.updatedAt);
    const graphql = await svc.graphql(`mutation { updateMonitor(id: "${created.body.data.id}") { id } }`, undefined, key);
    expect(graphql.body.errors[0].extensions.code).toBe('invalid_request');
  });

  it('of a webhook is 400 the same way', async () => {
    const created = await svc.request('POST', '/v1/webhooks', { key, body: { name: 'unchanged', url: 'http://127.0.0.1:9/hook' } });
    expect(created.status).toBe(201);
    const refused = await svc.request('PATCH', `/v1/webhooks/${created.body.data.id}`, { key, body: {} });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toMatch(/^Send at least one of 'name', 'url', 'events', 'status'/);
    expect((await svc.request('GET', `/v1/webhooks/${created.body.data.id}`, { key })).body.data.updatedAt).toBe(created.body.data.updatedAt);
  });
});
