import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startForumSim, type ForumSim } from '../../../adapters/sim/forum/forum-sim.ts';
import { createForumClient, type ForumClient } from '../../../adapters/forum/forum-client.ts';
import { upstreamFailure } from '../../support/upstream-errors.ts';

let sim: ForumSim;
let client: ForumClient;

beforeAll(async () => {
  sim = await startForumSim({ seed: 3 });
  client = createForumClient({ baseUrl: sim.url, timeoutMs: 300, maxRetries: 2 });
});

afterEach(() => sim.faults.clear());

afterAll(async () => {
  await client.close();
  await sim.close();
});

describe('fault injection on the forum sim gives typed errors', () => {
  it('a persistent 500 → unavailable with status 500', async () => {
    sim.faults.add({ route: '/r/', kind: 'status', status: 500 });
    const error = await upstreamFailure(client.getSubforumAbout('programming'));
    expect([error.kind, error.status]).toEqual(['unavailable', 500]);
  });

  it('a 503 for the next call only is retried away', async () => {
    sim.faults.add({ route: '/r/', kind: 'status', status: 503, count: 1 });
    const before = client.stats.requests;
    expect((await client.getSubforumAbout('programming')).name).toBe('programming');
    expect(client.stats.requests - before).toBe(2);
  });

  it('429 with Retry-After is waited out, then succeeds', async () => {
    sim.faults.add({ route: '/api/info', kind: 'rate_limit', retryAfterSeconds: 1, count: 1 });
    const started = Date.now();
    const things = await client.getThings([`t3_${sim.world.landmarks.posts.edited}`]);
    expect(things.size).toBe(1);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
  });

  it('429 on every attempt → unavailable with status 429', async () => {
    sim.faults.add({ route: '/api/info', kind: 'rate_limit', retryAfterSeconds: 0 });
    expect((await upstreamFailure(client.getThings(['t3_1a00001']))).status).toBe(429);
  });

  it('a silent upstream → unavailable after the client timeout', async () => {
    sim.faults.add({ route: '/comments/', kind: 'timeout' });
    const started = Date.now();
    const error = await upstreamFailure(client.getCommentTree(sim.world.landmarks.posts.edited));
    expect(error.kind).toBe('unavailable');
    expect(Date.now() - started).toBeGreaterThanOrEqual(3 * 300 - 50);
  });

  it('connection resets → unavailable', async () => {
    sim.faults.add({ route: '/search', kind: 'reset' });
    expect((await upstreamFailure(client.searchPosts({ q: 'x' }))).kind).toBe('unavailable');
  });

  it('latency delays but succeeds', async () => {
    sim.faults.add({ route: '/subreddits/search', kind: 'latency', latencyMs: 150 });
    const started = Date.now();
    await client.searchSubforums({ q: 'pics' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
  });

  it('regex routes and probability 0 never fire; rules can be added and cleared over HTTP', async () => {
    sim.faults.add({ route: '/^\\/r\\/[a-z]+\\/about$/', kind: 'status', status: 500, probability: 0 });
    expect((await client.getSubforumAbout('pics')).name).toBe('pics');
    const added = await fetch(`${sim.url}/__sim/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ rule: { route: '/^\\/r\\/[a-z]+\\/about$/', kind: 'status', status: 502 } }),
    });
    expect(added.status).toBe(201);
    expect((await upstreamFailure(client.getSubforumAbout('pics'))).status).toBe(502);
    expect((await fetch(`${sim.url}/__sim/faults`, { method: 'DELETE' })).status).toBe(200);
    expect((await client.getSubforumAbout('pics')).name).toBe('pics');
  });
});
