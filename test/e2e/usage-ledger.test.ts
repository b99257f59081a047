import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getForumPost } from '../../schema/catalogue/forum-posts.ts';
import { getMicroblogList } from '../../schema/catalogue/microblog-lists.ts';
import { connectMcp } from '../support/mcp.ts';
import { finishedRuns } from './monitor-support.ts';
import { restCall } from '../support/rest-call.ts';
import { startTestService, type TestService } from '../support/service.ts';

let svc: TestService;
let key: string;
// The service's clock, injected: the ledger's days are UTC days of it.
const NOW = new Date('2026-11-24T12:00:00Z');
const today = '2026-11-24';
/** Request ids of the billed calls made below, newest last, with what each was charged. */
const calls: { requestId: string; operationId: string; credits: number }[] = [];

beforeAll(async () => {
  svc = await startTestService({ now: () => NOW });
  ({ key } = await svc.newKey({ scopes: ['read:social', 'usage:read'] }));
  // REST: a forum post (1 + 3).
  const rest = await restCall(svc, key, getForumPost, getForumPost.example);
  expect(rest.status).toBe(200);
  calls.push({ requestId: rest.body.meta.requestId, operationId: 'getForumPost', credits: 4 });
  // GraphQL: a List (1 + 2) and the same forum post under two aliases (2 × 4), one call.
  const gql = await svc.graphql(`{ microblogList(id: "1500000000000000001") { id } a: forumPost(id: "1a00005") { id } b: forumPost(id: "1a00005") { id } }`, {}, key);
  expect(gql.body.errors).toBeUndefined();
  expect(gql.headers.get('x-credits-charged')).toBe('11');
  const gqlRequest = gql.headers.get('x-request-id') as string;
  calls.push({ requestId: gqlRequest, operationId: 'getMicroblogList', credits: 3 }, { requestId: gqlRequest, operationId: 'getForumPost', credits: 8 });
  // MCP: a List (1 + 2).
  const client = await connectMcp(svc.url, key);
  try {
    const result = await client.callTool({ name: getMicroblogList.tool, arguments: getMicroblogList.example });
    expect(result.isError).toBeFalsy();
    calls.push({ requestId: (result.structuredContent as { meta: { requestId: string } }).meta.requestId, operationId: 'getMicroblogList', credits: 3 });
  } finally {
    await client.close();
  }
});
afterAll(async () => {
  await svc?.close();
});

const expectedTotals = [
  { day: today, operationId: 'getForumPost', calls: 2, credits: 12 },
  { day: today, operationId: 'getMicroblogList', calls: 2, credits: 6 },
];

describe('the usage ledger operation', () => {
  it('REST: every charge with its request id, newest first, and the totals by day and operation; free', async () => {
    const res = await svc.request('GET', '/v1/usage/ledger', { key });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-credits-charged')).toBe('0');
    expect(res.headers.get('x-credits-remaining')).toBe(String(5000 - 18));
    const charges = res.body.data.map(({ requestId, operationId, credits, day }: Record<string, unknown>) => ({ requestId, operationId, credits, day }));
    expect([...charges].sort((a, b) => `${a.requestId}${a.operationId}`.localeCompare(`${b.requestId}${b.operationId}`))).toEqual(
      calls.map((call) => ({ ...call, day: today })).sort((a, b) => `${a.requestId}${a.operationId}`.localeCompare(`${b.requestId}${b.operationId}`)),
    );
    // Newest first: the MCP call was the last.
    expect(res.body.data[0].requestId).toBe(calls[3].requestId);
    expect(res.body.meta.totals).toEqual(expectedTotals);
    expect(res.body.meta.nextCursor).toBeNull();
  });

  it('pages with a cursor bound to the request, and filters by operation', async () => {
    const first = await svc.request('GET', '/v1/usage/ledger?limit=3', { key });
    expect(first.body.data).toHaveLength(3);
    expect(first.body.meta.totals).toEqual(expectedTotals);
    const second = await svc.request('GET', `/v1/usage/ledger?limit=3&cursor=${encodeURIComponent(first.body.meta.nextCursor)}`, { key });
    expect(second.body.data).toHaveLength(1);
    expect(second.body.meta.nextCursor).toBeNull();
    expect(new Set([...first.body.data, ...second.body.data].map((c: { requestId: string; operationId: string }) => `${c.requestId}/${c.operationId}`)).size).toBe(4);
    const changed = await svc.request('GET', `/v1/usage/ledger?limit=2&cursor=${encodeURIComponent(first.body.meta.nextCursor)}`, { key });
    expect(changed.status).toBe(400);
    const lists = await svc.request('GET', '/v1/usage/ledger?operationId=getMicroblogList', { key });
    expect(lists.body.data.map((c: { credits: number }) => c.credits)).toEqual([3, 3]);
    expect(lists.body.meta.totals).toEqual([expectedTotals[1]]);
  });

  it('GraphQL: the same ledger', async () => {
    const res = await svc.graphql(`{ usageLedger(limit: 10) { items { requestId operationId credits day } nextCursor totals { day operationId calls credits } } }`, {}, key);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.usageLedger.items).toHaveLength(4);
    expect(res.body.data.usageLedger.totals).toEqual(expectedTotals);
    expect(res.headers.get('x-credits-charged')).toBe('0');
  });

  it('MCP: the same ledger', async () => {
    const client = await connectMcp(svc.url, key);
    try {
      const result = await client.callTool({ name: 'get_usage_ledger', arguments: { operationId: 'getForumPost' } });
      expect(result.isError).toBeFalsy();
      const body = result.structuredContent as { data: { credits: number; requestId: string }[]; meta: { totals: unknown } };
      expect(body.data.map((c) => c.credits)).toEqual([8, 4]);
      expect(body.data.map((c) => c.requestId)).toEqual([calls[1].requestId, calls[0].requestId]);
      expect(body.meta.totals).toEqual([expectedTotals[0]]);
    } finally {
      await client.close();
    }
  });

  it('needs usage:read, and a range of at most 92 days in order', async () => {
    const { key: noUsage } = await svc.newKey({ scopes: ['read:social'] });
    const refused = await svc.request('GET', '/v1/usage/ledger', { key: noUsage });
    expect(refused.status).toBe(403);
    expect(refused.body.error.details.requiredScope).toBe('usage:read');
    const long = await svc.request('GET', '/v1/usage/ledger?from=2026-01-01&to=2026-06-01', { key });
    expect(long.status).toBe(400);
    expect(long.body.error.details.field).toBe('from');
    const reversed = await svc.request('GET', '/v1/usage/ledger?from=2026-02-02&to=2026-02-01', { key });
    expect(reversed.status).toBe(400);
    const badDay = await svc.request('GET', '/v1/usage/ledger?to=2026-13-01', { key });
    expect(badDay.status).toBe(400);
    expect(badDay.body.error.details.field).toBe('to');
  });

  it("another account's charges are not listed", async () => {
    const { key: other } = await svc.newKey({ scopes: ['usage:read'] });
    const res = await svc.request('GET', '/v1/usage/ledger', { key: other });
    expect(res.body.data).toEqual([]);
    expect(res.body.meta.totals).toEqual([]);
  });

  it("a monitor run's charge is a row of its own: operation monitorRun, the run's id", async () => {
    const { key: owner } = await svc.newKey({ scopes: ['read:social', 'usage:read', 'monitors:write'] });
    // Manual: a daily schedule's first firing (NOW + 1 day) is already past by the job store's real clock once the real
    // date passes it, and would queue a second run beside the baseline.
    const created = await svc.request('POST', '/v1/monitors', { key: owner, body: { name: 'ledger', target: { kind: 'search', keywords: 'rust' }, schedule: 'manual' } });
    expect(created.status).toBe(201);
    // The schedule's first firing is queued at the same frozen instant as the baseline run, so the two tie in the
    // newest-first list: the finished one is the baseline.
    const run = (await finishedRuns(svc, owner, created.body.data.id, 1)).find((each) => each.status !== 'queued' && each.status !== 'running')!;
    expect(run.status).toBe('succeeded');
    expect(run.creditsUsed).toBeGreaterThan(0);
    const res = await svc.request('GET', '/v1/usage/ledger?operationId=monitorRun', { key: owner });
    expect(res.body.data).toEqual([{ requestId: run.id, operationId: 'monitorRun', credits: run.creditsUsed, chargedAt: NOW.toISOString(), day: today }]);
    expect(res.body.meta.totals).toEqual([{ day: today, operationId: 'monitorRun', calls: 1, credits: run.creditsUsed }]);
    expect((await svc.request('GET', '/v1/usage', { key: owner })).body.data.balance).toBe(5000 - run.creditsUsed);
  });
});
