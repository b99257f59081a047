import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMcp } from '../support/mcp.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { finishedRuns } from './monitor-support.ts';

/**
 * The calls that queue a monitor run are free, but the run is charged: a dry run reports the run's worst case (the
 * hold it takes, 1 + 100 × 3 for a subforum's page of forum posts) and a credit ceiling below it refuses the call,
 * nothing queued (docs/monitors.md, Money; docs/api-conventions.md, Credit ceiling).
 */
let svc: TestService;
let key: string;

beforeAll(async () => {
  svc = await startTestService({ tiers: { free: { maxMonitors: 30, rateLimitPerMinute: 100_000 } }, jobs: { processEvery: 100 } });
  ({ key } = await svc.newKey({ scopes: ['read:social', 'monitors:write', 'usage:read'] }));
});
afterAll(async () => {
  await svc?.close();
});

const SUBFORUM = { kind: 'subforum', subforum: 'programming' };
/** A subforum run: one forum read of at most 100 posts at 3 credits, plus its 1-credit minimum. */
const SUBFORUM_RUN = { minimumCredits: 1, worstCaseCredits: 301 };
/** A search run from both platforms: 1 + 100 × 3 on the forum, 1 + 100 × 1 on the microblog. */
const SEARCH_RUN = { minimumCredits: 2, worstCaseCredits: 402 };

const balance = async () => (await svc.request('GET', '/v1/usage', { key })).body.data.balance as number;
const runsOf = async (id: string) => (await svc.request('GET', `/v1/monitors/${id}/runs?limit=100`, { key })).body.data as { status: string }[];

/** A manual subforum monitor whose baseline run has finished. */
async function baselined(): Promise<string> {
  const created = await svc.request('POST', '/v1/monitors', { key, body: { name: 'budget', target: SUBFORUM, schedule: 'manual' } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  await finishedRuns(svc, key, created.body.data.id, 1);
  return created.body.data.id;
}

describe('run-now over REST', () => {
  it('x-max-credits below the run’s worst case is the reads’ 400, free, nothing queued; at it, the run is queued', async () => {
    const id = await baselined();
    const before = await balance();
    const refused = await svc.request('POST', `/v1/monitors/${id}/run`, { key, headers: { 'x-max-credits': '0' } });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'invalid_request', details: { field: 'x-max-credits', reason: 'max_credits_exceeded', maxCredits: 0, worstCaseCredits: 301 } });
    expect(refused.headers.get('x-credits-charged')).toBe('0');
    const under = await svc.request('POST', `/v1/monitors/${id}/run`, { key, headers: { 'x-max-credits': '300' } });
    expect(under.body.error.details).toMatchObject({ maxCredits: 300, worstCaseCredits: 301 });
    expect(await runsOf(id)).toHaveLength(1);
    expect(await balance()).toBe(before);

    const queued = await svc.request('POST', `/v1/monitors/${id}/run`, { key, headers: { 'x-max-credits': '301' } });
    expect(queued.status).toBe(202);
    expect(queued.headers.get('x-credits-charged')).toBe('0');
    const [run] = await finishedRuns(svc, key, id, 2);
    expect(run.status).toBe('succeeded');
    expect(run.creditsUsed).toBeLessThanOrEqual(301);
  });

  it('a dry run estimates the run it would queue and queues nothing; an unknown monitor is 404', async () => {
    const id = await baselined();
    const dry = await svc.request('POST', `/v1/monitors/${id}/run`, { key, headers: { 'x-dry-run': 'true' } });
    expect(dry.status).toBe(200);
    expect(dry.body.data).toBeNull();
    expect(dry.body.meta).toEqual({ requestId: expect.any(String), dryRun: true, estimate: { ...SUBFORUM_RUN, rateLimitWeight: 4 } });
    expect(dry.headers.get('x-credits-charged')).toBe('0');
    expect(await runsOf(id)).toHaveLength(1);
    const unknown = await svc.request('POST', '/v1/monitors/00000000-0000-4000-8000-00000000beef/run', { key, headers: { 'x-dry-run': 'true' } });
    expect(unknown.status).toBe(404);
  });
});

describe('the worst case bounds the run', () => {
  it('a forum that answers more than the page asked is read up to the page: the run is charged at most its worst case', async () => {
    const forum = svc.service.platforms.sims.forum!.world;
    forum.addSubforum({ name: 'budgetland' });
    for (let i = 0; i < 110; i++) forum.addPost({ subforum: 'budgetland', title: `Post ${i} of a busy subforum`, selftext: `Body ${i}.` });
    forum.paging = { overfill: 10 };
    try {
      const created = await svc.request('POST', '/v1/monitors', { key, body: { name: 'busy', target: { kind: 'subforum', subforum: 'budgetland' }, schedule: 'manual' }, headers: { 'x-max-credits': '301' } });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const [baseline] = await finishedRuns(svc, key, created.body.data.id, 1);
      expect(baseline).toMatchObject({ status: 'succeeded', resultsFound: 100, creditsUsed: 301 });
    } finally {
      forum.paging = {};
    }
  });
});

describe('create and retarget over REST', () => {
  it('a dry run of a create estimates its baseline run; a ceiling below it refuses the create, nothing created', async () => {
    const body = { name: 'search', target: { kind: 'search', keywords: 'rust' }, schedule: 'manual' };
    const dry = await svc.request('POST', '/v1/monitors', { key, body, headers: { 'x-dry-run': 'true' } });
    expect(dry.body.meta.estimate).toEqual({ ...SEARCH_RUN, rateLimitWeight: 1 });
    const forumOnly = await svc.request('POST', '/v1/monitors', { key, body: { ...body, sources: ['forum'] }, headers: { 'x-dry-run': 'true' } });
    expect(forumOnly.body.meta.estimate).toEqual({ ...SUBFORUM_RUN, rateLimitWeight: 1 });
    const count = (await svc.request('GET', '/v1/monitors?limit=100', { key })).body.data.length;
    const refused = await svc.request('POST', '/v1/monitors', { key, body, headers: { 'x-max-credits': '401' } });
    expect(refused.status).toBe(400);
    expect(refused.body.error.details).toEqual({ field: 'x-max-credits', reason: 'max_credits_exceeded', maxCredits: 401, worstCaseCredits: 402 });
    expect((await svc.request('GET', '/v1/monitors?limit=100', { key })).body.data).toHaveLength(count);
    const created = await svc.request('POST', '/v1/monitors', { key, body, headers: { 'x-max-credits': '402' } });
    expect(created.status).toBe(201);
    expect(created.headers.get('x-credits-charged')).toBe('0');
  });

  it('a change that queues a baseline run is priced as it; one that queues none is free', async () => {
    const id = await baselined();
    const retarget = { target: { kind: 'microblog_list', list: '1500000000000000001' } };
    const dry = await svc.request('PATCH', `/v1/monitors/${id}`, { key, body: retarget, headers: { 'x-dry-run': 'true' } });
    expect(dry.body.meta.estimate).toEqual({ minimumCredits: 1, worstCaseCredits: 101, rateLimitWeight: 1 });
    const rename = await svc.request('PATCH', `/v1/monitors/${id}`, { key, body: { name: 'renamed' }, headers: { 'x-max-credits': '0' } });
    expect(rename.status).toBe(200);
    const refused = await svc.request('PATCH', `/v1/monitors/${id}`, { key, body: retarget, headers: { 'x-max-credits': '100' } });
    expect(refused.body.error.details).toMatchObject({ reason: 'max_credits_exceeded', maxCredits: 100, worstCaseCredits: 101 });
    expect((await svc.request('GET', `/v1/monitors/${id}`, { key })).body.data.target).toEqual(SUBFORUM);
    expect(await runsOf(id)).toHaveLength(1);
  });
});

describe('run-now over GraphQL and MCP', () => {
  it('extensions.maxCredits below the worst case refuses the mutation; extensions.dryRun estimates the run', async () => {
    const id = await baselined();
    const query = `mutation { runMonitor(id: "${id}") { jobId queued } }`;
    const refused = await svc.request('POST', '/graphql', { key, body: { query, extensions: { maxCredits: 0 } } });
    expect(refused.body.data ?? null).toBeNull();
    expect(refused.body.errors[0].extensions).toMatchObject({ code: 'invalid_request', details: { field: 'extensions.maxCredits', reason: 'max_credits_exceeded', maxCredits: 0, worstCaseCredits: 301 } });
    const dry = await svc.request('POST', '/graphql', { key, body: { query, extensions: { dryRun: true } } });
    expect(dry.body.extensions.estimate).toEqual({ ...SUBFORUM_RUN, rateLimitWeight: 4 });
    expect(dry.body.extensions.credits).toEqual({ charged: 0, remaining: expect.any(Number), worstCase: 301 });
    expect(await runsOf(id)).toHaveLength(1);
  });

  it('the run_monitor tool takes maxCredits and dryRun', async () => {
    const id = await baselined();
    const client = await connectMcp(svc.url, key);
    try {
      const refused = await client.callTool({ name: 'run_monitor', arguments: { id, maxCredits: 0 } });
      expect(refused.isError).toBe(true);
      expect((refused.structuredContent as { error: { details: unknown } }).error.details).toEqual({ field: 'maxCredits', reason: 'max_credits_exceeded', maxCredits: 0, worstCaseCredits: 301 });
      const dry = await client.callTool({ name: 'run_monitor', arguments: { id, dryRun: true } });
      expect((dry.structuredContent as { meta: { estimate: unknown } }).meta.estimate).toEqual({ ...SUBFORUM_RUN, rateLimitWeight: 4 });
      expect(await runsOf(id)).toHaveLength(1);
    } finally {
      await client.close();
    }
  });
});
