import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { startReceiver } from '../support/webhook-receiver.ts';
import { finishedRuns, until } from './monitor-support.ts';

/** Platform text holding U+0000, which PostgreSQL's text cannot hold and jsonb refuses even escaped. */

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

/** Adds a post through the simulated forum's content API, as the platform's own users would. */
async function addPost(post: { subforum: string; title: string; selftext: string }): Promise<{ id: string }> {
  const res = await fetch(`${svc.service.platforms.simulated.forum}/__sim/forum/posts`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(post) });
  expect(res.status).toBe(201);
  return (await res.json()) as { id: string };
}

describe('platform text holding U+0000', () => {
  it('a monitor reports it as the platform gave it, with the clean post of the same run, delivers it, and later runs go on', async () => {
    const { key } = await svc.newKey({ scopes: ['read:social', 'monitors:write', 'webhooks:write'] });
    const hook = (await svc.request('POST', '/v1/webhooks', { key, body: { name: 'nul', url: receiver.url('/nul') } })).body.data;
    const created = await svc.request('POST', '/v1/monitors', { key, body: { name: 'nul', target: { kind: 'search', keywords: 'nulwombat' }, sources: ['forum'], schedule: 'manual', webhookId: hook.id } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.data.id as string;
    await finishedRuns(svc, key, id, 1);

    const title = 'nulwombat\u0000 sighting';
    const selftext = 'before\u0000after, and \u0000 again';
    const broken = await addPost({ subforum: 'programming', title, selftext });
    const clean = await addPost({ subforum: 'programming', title: 'nulwombat, a clean sighting', selftext: 'Nothing odd here at all.' });
    await svc.request('POST', `/v1/monitors/${id}/run`, { key });
    const [run] = await finishedRuns(svc, key, id, 2);
    expect(run, run.errorSummary ?? '').toMatchObject({ status: 'succeeded', newResults: 2 });
    const results = (await svc.request('GET', `/v1/monitors/${id}/results?limit=10`, { key })).body.data as { externalId: string; title: string; body: string }[];
    expect(results.find((result) => result.externalId === broken.id)).toMatchObject({ title, body: selftext });
    expect(results.find((result) => result.externalId === clean.id)).toMatchObject({ title: 'nulwombat, a clean sighting' });

    await until(() => svc.request('GET', `/v1/webhook-deliveries?webhookId=${hook.id}`, { key }), (body) => body.data.filter((d: { status: string }) => d.status === 'succeeded').length === 2);
    const delivered = receiver.at('/nul').map((request) => JSON.parse(request.body) as { data: { result: { externalId: string; title: string } } });
    expect(delivered.find((event) => event.data.result.externalId === broken.id)?.data.result.title).toBe(title);

    // Seen: the next run does not report it again, and reports what is new.
    const later = await addPost({ subforum: 'programming', title: 'nulwombat, seen again later', selftext: 'A third one.' });
    await svc.request('POST', `/v1/monitors/${id}/run`, { key });
    const [next] = await finishedRuns(svc, key, id, 3);
    expect(next).toMatchObject({ status: 'succeeded', newResults: 1 });
    expect((await svc.request('GET', `/v1/monitors/${id}/results?limit=10`, { key })).body.data[0].externalId).toBe(later.id);
  });

  it('an idempotent billed search answers 200, is charged once, and its replay is the same bytes', async () => {
    const { key } = await svc.newKey({ scopes: ['read:social', 'usage:read'] });
    await addPost({ subforum: 'programming', title: 'nulquokka\u0000 here', selftext: 'x\u0000y' });
    const balance = async () => (await svc.request('GET', '/v1/usage', { key })).body.data.balance as number;
    const before = await balance();
    const idem = randomUUID();
    const search = () =>
      fetch(`${svc.url}/v1/forum/search`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': idem },
        body: JSON.stringify({ query: 'nulquokka', limit: 5 }),
      });
    const first = await search();
    const firstText = await first.text();
    expect(first.status, firstText).toBe(200);
    expect(JSON.parse(firstText).data[0].title).toBe('nulquokka\u0000 here');
    const again = await search();
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.text()).toBe(firstText);
    expect(before - (await balance())).toBe(Number(first.headers.get('x-credits-charged')));
  });
});
