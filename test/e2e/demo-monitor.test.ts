import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSimPublisher } from '../../adapters/sim/sim-publisher.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { startReceiver } from '../support/webhook-receiver.ts';
import { finishedRuns, until } from './monitor-support.ts';

/** The README's walkthrough on the demo's live simulated platforms: the publisher's content, not a test's own posts. */
let svc: TestService;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  receiver = await startReceiver();
  svc = await startTestService({ simPublish: true, jobs: { processEvery: 100, deliverySweepMs: 100 } });
});
afterAll(async () => {
  await svc?.close();
  await receiver?.close();
});

describe('a newcomer’s first monitor on the demo', () => {
  it('reports what the simulated platforms publish after its baseline, and its webhook fires', async () => {
    const { key } = await svc.newKey({ scopes: ['read:social', 'monitors:write', 'webhooks:write'] });
    const hook = (await svc.request('POST', '/v1/webhooks', { key, body: { name: 'inbox', url: receiver.url('/hook') } })).body.data;
    const monitor = (await svc.request('POST', '/v1/monitors', { key, body: { name: 'Rust', target: { kind: 'search', keywords: 'rust' }, webhookId: hook.id } })).body.data;
    const [baseline] = await finishedRuns(svc, key, monitor.id, 1);
    expect(baseline).toMatchObject({ status: 'succeeded', newResults: 0 });
    expect(baseline.resultsFound).toBeGreaterThan(0);

    // What the publisher adds in its gentle pace (one step every 20 s): an hour of it, taken at once.
    createSimPublisher(svc.service.platforms.sims.forum!.world, svc.service.platforms.sims.microblog!.world, 4242).step(180);
    await svc.request('POST', `/v1/monitors/${monitor.id}/run`, { key });
    const [run] = await finishedRuns(svc, key, monitor.id, 2);
    expect(run.status).toBe('succeeded');
    expect(run.newResults).toBeGreaterThan(0);
    const results = (await svc.request('GET', `/v1/monitors/${monitor.id}/results?limit=100`, { key })).body.data as { title: string | null; body: string | null }[];
    expect(results).toHaveLength(run.newResults);
    for (const result of results) expect(`${result.title ?? ''} ${result.body ?? ''}`.toLowerCase()).toContain('rust');

    await until(() => svc.request('GET', `/v1/webhook-deliveries?webhookId=${hook.id}&limit=100`, { key }), (body) => body.data.filter((d: { status: string }) => d.status === 'succeeded').length === run.newResults);
    const events = receiver.at('/hook').map((request) => new Webhook(hook.secret).verify(request.body, request.headers) as { type: string });
    expect(events).toHaveLength(run.newResults);
    expect(new Set(events.map((event) => event.type))).toEqual(new Set(['monitor.result.created']));
  });
});
