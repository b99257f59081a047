import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMcp } from '../support/mcp.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { startReceiver } from '../support/webhook-receiver.ts';
import { finishedRuns, until } from './monitor-support.ts';

let svc: TestService;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  receiver = await startReceiver();
  svc = await startTestService({ tiers: { free: { rateLimitPerMinute: 100_000 } }, jobs: { processEvery: 100, deliverySweepMs: 50 } });
});
afterAll(async () => {
  await svc?.close();
  await receiver?.close();
});

/** Keys of one workspace: the owner holds everything, the others only what a test gives them. */
async function workspace() {
  const owner = await svc.newKey({ scopes: ['read:social', 'monitors:write', 'webhooks:write'] });
  const keyWith = async (scopes: string[]) => (await svc.newKey({ scopes, workspaceId: owner.workspaceId })).key;
  return { owner: owner.key, keyWith };
}

function expectMissing(res: { status: number; body: any }, scope: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(403);
  expect(res.body.error.code).toBe('insufficient_scope');
  expect(res.body.error.details.requiredScope).toBe(scope);
  expect(res.body.error.message).toContain(scope);
}

const SUBFORUM = { name: 'p', target: { kind: 'subforum', subforum: 'programming' }, schedule: 'manual' };

describe('platform content needs the platform’s read scope, whatever monitor or webhook scope a key holds', () => {
  it('creating or changing a monitor needs the read scope of each platform it will read', async () => {
    const { keyWith } = await workspace();
    const writer = await keyWith(['monitors:write']);
    expectMissing(await svc.request('POST', '/v1/monitors', { key: writer, body: SUBFORUM }), 'read:forum');
    const forumWriter = await keyWith(['monitors:write', 'read:forum']);
    // A search reads both platforms unless its sources say otherwise.
    const search = { name: 's', target: { kind: 'search', keywords: 'rust' }, schedule: 'manual' };
    expectMissing(await svc.request('POST', '/v1/monitors', { key: forumWriter, body: search }), 'read:microblog');
    const created = await svc.request('POST', '/v1/monitors', { key: forumWriter, body: { ...search, sources: ['forum'] } });
    expect(created.status).toBe(201);
    const id = created.body.data.id;
    expectMissing(await svc.request('PATCH', `/v1/monitors/${id}`, { key: forumWriter, body: { target: { kind: 'microblog_user', user: 'simdevs' } } }), 'read:microblog');
    expectMissing(await svc.request('PATCH', `/v1/monitors/${id}`, { key: forumWriter, body: { sources: ['forum', 'microblog'] } }), 'read:microblog');
    // A change that reads nothing new needs no platform scope.
    expect((await svc.request('PATCH', `/v1/monitors/${id}`, { key: writer, body: { name: 'renamed' } })).status).toBe(200);
    const social = (await svc.newKey({ scopes: ['read:social', 'monitors:write'] })).key;
    expect((await svc.request('POST', '/v1/monitors', { key: social, body: search })).status).toBe(201);
  });

  it('reading results needs the read scope of the monitor’s platforms, over REST, GraphQL and MCP', async () => {
    const { owner, keyWith } = await workspace();
    const monitor = (await svc.request('POST', '/v1/monitors', { key: owner, body: { ...SUBFORUM, backfill: 3 } })).body.data;
    await finishedRuns(svc, owner, monitor.id, 1);
    const reader = await keyWith(['monitors:write']);
    expectMissing(await svc.request('GET', `/v1/monitors/${monitor.id}/results`, { key: reader }), 'read:forum');
    const graphql = await svc.graphql('query($id: String!) { monitorResults(id: $id) { title } }', { id: monitor.id }, reader);
    expect(JSON.stringify(graphql.body)).toContain('insufficient_scope');
    expect(graphql.body.data?.monitorResults ?? null).toBeNull();
    const client = await connectMcp(svc.url, reader);
    try {
      const result = (await client.callTool({ name: 'list_monitor_results', arguments: { id: monitor.id } })) as { isError?: boolean; structuredContent?: any };
      expect(result.isError).toBe(true);
      expect(result.structuredContent.error).toMatchObject({ code: 'insufficient_scope', details: { requiredScope: 'read:forum' } });
    } finally {
      await client.close();
    }
    // The monitor itself and its runs hold no platform content.
    expect((await svc.request('GET', `/v1/monitors/${monitor.id}/runs`, { key: reader })).status).toBe(200);
    const allowed = await svc.request('GET', `/v1/monitors/${monitor.id}/results`, { key: await keyWith(['monitors:read', 'read:forum']) });
    expect(allowed.status).toBe(200);
    expect(allowed.body.data).toHaveLength(3);
    // Another account's monitor is still a 404, not a 403 that would tell it exists.
    expect((await svc.request('GET', `/v1/monitors/${monitor.id}/results`, { key: (await svc.newKey({ scopes: ['monitors:read'] })).key })).status).toBe(404);
  });

  it('sending content to a webhook needs the read scope: redelivering a result, attaching a monitor, moving the url', async () => {
    const { owner, keyWith } = await workspace();
    const hook = (await svc.request('POST', '/v1/webhooks', { key: owner, body: { name: 'h', url: receiver.url('/content') } })).body.data;
    const monitor = (await svc.request('POST', '/v1/monitors', { key: owner, body: { ...SUBFORUM, webhookId: hook.id, backfill: 1 } })).body.data;
    const deliveries = await until(
      () => svc.request('GET', `/v1/webhook-deliveries?webhookId=${hook.id}`, { key: owner }),
      (body) => body.data.some((d: { status: string }) => d.status === 'succeeded'),
    );
    const [delivered] = deliveries.data;
    const hooks = await keyWith(['webhooks:write']);
    expectMissing(await svc.request('POST', `/v1/webhook-deliveries/${delivered.id}/redeliver`, { key: hooks }), 'read:forum');
    expectMissing(await svc.request('PATCH', `/v1/webhooks/${hook.id}`, { key: hooks, body: { url: receiver.url('/elsewhere') } }), 'read:forum');
    expect((await svc.request('PATCH', `/v1/webhooks/${hook.id}`, { key: hooks, body: { name: 'renamed' } })).status).toBe(200);
    // A test event carries no platform content.
    const test = (await svc.request('POST', `/v1/webhooks/${hook.id}/test`, { key: hooks })).body.data;
    expect((await svc.request('POST', `/v1/webhook-deliveries/${test.id}/redeliver`, { key: hooks })).status).toBe(200);
    const monitors = await keyWith(['monitors:write']);
    await svc.request('PATCH', `/v1/monitors/${monitor.id}`, { key: owner, body: { webhookId: null } });
    expectMissing(await svc.request('PATCH', `/v1/monitors/${monitor.id}`, { key: monitors, body: { webhookId: hook.id } }), 'read:forum');
    expect(receiver.at('/elsewhere')).toHaveLength(0);
    const forumHooks = await keyWith(['webhooks:write', 'read:forum']);
    expect((await svc.request('POST', `/v1/webhook-deliveries/${delivered.id}/redeliver`, { key: forumHooks })).status).toBe(200);
  });
});
