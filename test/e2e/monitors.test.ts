import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqlDbFromOrm } from '../../adapters/db/sql.ts';
import { fundedWorkspace } from '../support/billing.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { finishedRuns, until } from './monitor-support.ts';

let svc: TestService;
let key: string;

beforeAll(async () => {
  svc = await startTestService({ tiers: { free: { maxMonitors: 30, rateLimitPerMinute: 100_000 } }, jobs: { processEvery: 100 } });
  ({ key } = await svc.newKey({ scopes: ['read:social', 'monitors:write', 'webhooks:write', 'usage:read'] }));
});
afterAll(async () => {
  await svc?.close();
});

const forum = () => svc.service.platforms.sims.forum!.world;
const microblog = () => svc.service.platforms.sims.microblog!.world;

async function createMonitor(body: Record<string, unknown>, as = key) {
  return svc.request('POST', '/v1/monitors', { key: as, body: { name: 'm', ...body } });
}

async function runNow(monitorId: string, as = key) {
  const res = await svc.request('POST', `/v1/monitors/${monitorId}/run`, { key: as });
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  return res.body.data as { jobId: string; queued: boolean };
}

/** Creates a monitor and waits for its baseline run. */
async function baselined(body: Record<string, unknown>, as = key) {
  const created = await createMonitor(body, as);
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const [baseline] = await finishedRuns(svc, as, created.body.data.id, 1);
  expect(baseline.status, baseline.errorSummary ?? '').toBe('succeeded');
  expect(baseline.newResults).toBe(0);
  return created.body.data.id as string;
}

/** Runs the monitor now and returns that run and the results it added. */
async function nextRun(monitorId: string, previousRuns: number, as = key) {
  await runNow(monitorId, as);
  const runs = await finishedRuns(svc, as, monitorId, previousRuns + 1);
  const results = (await svc.request('GET', `/v1/monitors/${monitorId}/results?limit=100`, { key: as })).body.data;
  return { run: runs[0], results };
}

describe('monitor resources', () => {
  it('creates an active daily monitor by default, normalising the identifier, and reads, lists, updates and deletes it', async () => {
    const created = await createMonitor({ target: { kind: 'subforum', subforum: 'https://www.reddit.com/r/programming/new/' } });
    expect(created.status).toBe(201);
    const monitor = created.body.data;
    expect(monitor).toMatchObject({ status: 'active', schedule: 'daily', sources: ['forum'], webhookId: null, target: { kind: 'subforum', subforum: 'programming' } });
    expect(Date.parse(monitor.nextRunAt) - Date.parse(monitor.createdAt)).toBe(86_400_000);
    expect((await svc.request('GET', `/v1/monitors/${monitor.id}`, { key })).body.data.id).toBe(monitor.id);
    expect((await svc.request('GET', '/v1/monitors', { key })).body.data.map((m: { id: string }) => m.id)).toContain(monitor.id);
    const paused = await svc.request('PATCH', `/v1/monitors/${monitor.id}`, { key, body: { status: 'paused', name: 'renamed' } });
    expect(paused.body.data).toMatchObject({ status: 'paused', name: 'renamed', nextRunAt: null });
    expect((await svc.request('DELETE', `/v1/monitors/${monitor.id}`, { key })).body.data).toEqual({ id: monitor.id, deleted: true });
    expect((await svc.request('GET', `/v1/monitors/${monitor.id}`, { key })).status).toBe(404);
  });

  it.each([
    [{ kind: 'microblog_user', user: '@SimDevs' }, { user: 'SimDevs' }],
    [{ kind: 'microblog_user', user: 'https://x.com/simdevs/status/1' }, { user: 'simdevs' }],
    [{ kind: 'forum_thread', post: 't3_1A00005' }, { post: '1a00005' }],
    [{ kind: 'forum_thread', post: 'https://www.reddit.com/r/x/comments/1a00005/title/' }, { post: '1a00005' }],
    [{ kind: 'microblog_thread', post: 'https://twitter.com/a/status/2072653763834810367?s=20' }, { post: '2072653763834810367' }],
    [{ kind: 'microblog_list', list: 'https://x.com/i/lists/1500000000000000001' }, { list: '1500000000000000001' }],
    [{ kind: 'forum_user', username: 'u/sim_user' }, { username: 'sim_user' }],
  ])('normalises %j', async (target, expected) => {
    const res = await createMonitor({ target, schedule: 'manual' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.data.target).toMatchObject(expected);
  });

  it.each([
    [{ target: { kind: 'nope' } }, 'target'],
    [{ target: { kind: 'subforum', subforum: 'r/' } }, 'target'],
    [{ target: { kind: 'search', keywords: '-only -exclusions' } }, 'target'],
    [{ target: { kind: 'search', keywords: 'x' }, schedule: 'often' }, 'schedule'],
    [{ target: { kind: 'subforum', subforum: 'programming' }, sources: ['microblog'] }, 'sources'],
    [{ target: { kind: 'search', keywords: 'x' }, name: '' }, 'name'],
    [{ target: { kind: 'search', keywords: 'x' }, name: ' \t  ' }, 'name'],
    // The platform's own pages, not profiles: no account is called `i` or `home`.
    [{ target: { kind: 'microblog_user', user: 'https://x.com/i/lists/1500000000000000001' } }, 'target.user'],
    [{ target: { kind: 'microblog_user', user: 'https://x.com/home' } }, 'target.user'],
    [{ target: { kind: 'microblog_user', user: 'https://twitter.com/explore' } }, 'target.user'],
  ])('refuses %j with a 400 naming %s', async (body, field) => {
    const res = await createMonitor(body);
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(String(res.body.error.details.field)).toMatch(new RegExp(`^${field}`));
  });

  it('trims a name, and refuses one that is all spaces on update too', async () => {
    const created = await createMonitor({ target: { kind: 'search', keywords: 'rust' }, schedule: 'manual', name: '  Rust watch  ' });
    expect(created.body.data.name).toBe('Rust watch');
    const blank = await svc.request('PATCH', `/v1/monitors/${created.body.data.id}`, { key, body: { name: '   ' } });
    expect(blank.status).toBe(400);
    expect(blank.body.error.details.field).toBe('name');
    expect((await svc.request('GET', `/v1/monitors/${created.body.data.id}`, { key })).body.data.name).toBe('Rust watch');
  });

  it('refuses an unknown member inside target with a 400 naming it, on create and on update, and creates nothing', async () => {
    const before = (await svc.request('GET', '/v1/monitors?limit=100', { key })).body.data.length;
    const created = await createMonitor({ target: { kind: 'subforum', subforum: 'programming', keyword: 'rust' } });
    expect(created.status, JSON.stringify(created.body)).toBe(400);
    expect(created.body.error.details.field).toBe('target.keyword');
    expect((await svc.request('GET', '/v1/monitors?limit=100', { key })).body.data).toHaveLength(before);
    const id = (await createMonitor({ target: { kind: 'search', keywords: 'rust' }, schedule: 'manual' })).body.data.id;
    const patched = await svc.request('PATCH', `/v1/monitors/${id}`, { key, body: { target: { kind: 'microblog_user', user: 'simdevs', includeReplys: true } } });
    expect(patched.status, JSON.stringify(patched.body)).toBe(400);
    expect(patched.body.error.details.field).toBe('target.includeReplys');
    expect((await svc.request('GET', `/v1/monitors/${id}`, { key })).body.data.target).toEqual({ kind: 'search', keywords: 'rust' });
  });

  it('refuses a source named twice as a duplicate value naming sources, on create and on update', async () => {
    const created = await createMonitor({ target: { kind: 'search', keywords: 'rust' }, sources: ['forum', 'forum'] });
    expect(created.status, JSON.stringify(created.body)).toBe(400);
    expect(created.body.error.details.field).toBe('sources');
    expect(created.body.error.message).toMatch(/duplicate value/);
    const id = (await createMonitor({ target: { kind: 'search', keywords: 'rust' }, sources: ['forum'], schedule: 'manual' })).body.data.id;
    const patched = await svc.request('PATCH', `/v1/monitors/${id}`, { key, body: { sources: ['microblog', 'forum', 'microblog'] } });
    expect(patched.status, JSON.stringify(patched.body)).toBe(400);
    expect(patched.body.error.details.field).toBe('sources');
    expect(patched.body.error.message).toMatch(/duplicate value/);
  });

  it('refuses keywords that can never match (a term both required and excluded) with a 400 naming them, on create and on update', async () => {
    const created = await createMonitor({ target: { kind: 'search', keywords: 'python -python' } });
    expect(created.status, JSON.stringify(created.body)).toBe(400);
    expect(created.body.error.details.field).toBe('target.keywords');
    const id = (await createMonitor({ target: { kind: 'subforum', subforum: 'programming', keywords: 'python -java' }, schedule: 'manual' })).body.data.id;
    // A word matches inside longer words: whatever holds `python` holds `py`.
    const patched = await svc.request('PATCH', `/v1/monitors/${id}`, { key, body: { target: { kind: 'subforum', subforum: 'programming', keywords: '"python tips" -py' } } });
    expect(patched.status, JSON.stringify(patched.body)).toBe(400);
    expect(patched.body.error.details.field).toBe('target.keywords');
  });

  it('answers 404 for another account’s monitor and webhook, and 409 at the tier’s ceilings', async () => {
    const other = await svc.newKey({ scopes: ['read:social', 'monitors:write', 'webhooks:write'] });
    const mine = (await createMonitor({ target: { kind: 'search', keywords: 'rust' }, schedule: 'manual' })).body.data.id;
    for (const [method, path] of [['GET', `/v1/monitors/${mine}`], ['PATCH', `/v1/monitors/${mine}`], ['DELETE', `/v1/monitors/${mine}`], ['GET', `/v1/monitors/${mine}/runs`], ['GET', `/v1/monitors/${mine}/results`], ['POST', `/v1/monitors/${mine}/run`]] as const) {
      const res = await svc.request(method, path, { key: other.key, ...(method === 'PATCH' ? { body: { name: 'x' } } : {}) });
      expect(res.status, `${method} ${path}`).toBe(404);
    }
    const theirHook = (await svc.request('POST', '/v1/webhooks', { key: other.key, body: { name: 'h', url: 'https://hooks.example.com/a' } })).body.data.id;
    const withTheirs = await createMonitor({ target: { kind: 'search', keywords: 'rust' }, webhookId: theirHook });
    expect(withTheirs.status).toBe(404);
    expect(withTheirs.body.error.details).toMatchObject({ resource: 'webhook' });
    const secondHook = await svc.request('POST', '/v1/webhooks', { key: other.key, body: { name: 'h2', url: 'https://hooks.example.com/b' } });
    expect(secondHook.status).toBe(409);
    expect(secondHook.body.error.details).toMatchObject({ limit: 'maxWebhooks', maxWebhooks: 1 });
    expect(secondHook.body.error.message).toMatch(/^The free tier allows 1 webhook; /);

    const hourly = await createMonitor({ target: { kind: 'search', keywords: 'rust' }, schedule: 'hourly' }, other.key);
    expect(hourly.status).toBe(409);
    expect(hourly.body.error.details.limit).toBe('hourlySchedules');
    const { maxMonitors } = (await svc.request('GET', '/v1/limits', { key: other.key })).body.data;
    const ids: string[] = [];
    for (let i = 0; i < maxMonitors; i++) {
      const created = await createMonitor({ target: { kind: 'search', keywords: 'rust' }, schedule: 'manual' }, other.key);
      expect(created.status).toBe(201);
      ids.push(created.body.data.id);
    }
    const oneMore = await createMonitor({ target: { kind: 'search', keywords: 'rust' } }, other.key);
    expect(oneMore.status).toBe(409);
    expect(oneMore.body.error.details).toMatchObject({ limit: 'maxMonitors', maxMonitors });
    // A paused monitor still counts; an archived one does not, until it is brought back.
    const patch = (id: string, status: string) => svc.request('PATCH', `/v1/monitors/${id}`, { key: other.key, body: { status } });
    expect((await patch(ids[0], 'paused')).status).toBe(200);
    expect((await createMonitor({ target: { kind: 'search', keywords: 'rust' }, schedule: 'manual' }, other.key)).status).toBe(409);
    expect((await patch(ids[1], 'archived')).status).toBe(200);
    expect((await createMonitor({ target: { kind: 'search', keywords: 'rust' }, schedule: 'manual' }, other.key)).status).toBe(201);
    const unarchived = await patch(ids[1], 'paused');
    expect(unarchived.status, JSON.stringify(unarchived.body)).toBe(409);
    expect(unarchived.body.error.details).toMatchObject({ limit: 'maxMonitors', maxMonitors });
    expect((await svc.request('GET', `/v1/monitors/${ids[1]}`, { key: other.key })).body.data.status).toBe('archived');
  });

  it('keeps the schedule’s nextRunAt when run now, and counts the first run’s items as its baseline', async () => {
    const created = (await createMonitor({ target: { kind: 'subforum', subforum: 'programming' }, schedule: 'weekly' })).body.data;
    const [baseline] = await finishedRuns(svc, key, created.id, 1);
    expect(baseline.resultsFound).toBeGreaterThan(0);
    const { seenId, seenLink, seenContent, duplicateInRun, filtered } = baseline.suppressed;
    expect(baseline.suppressed.baseline).toBe(baseline.resultsFound - seenId - seenLink - seenContent - duplicateInRun - filtered);
    await runNow(created.id);
    await finishedRuns(svc, key, created.id, 2);
    const monitor = (await svc.request('GET', `/v1/monitors/${created.id}`, { key })).body.data;
    expect(monitor.lastRunAt).not.toBeNull();
    expect(monitor.nextRunAt).toBe(created.nextRunAt);
  });

  it('applies two PATCHes of one monitor at once one after the other, losing neither’s fields', async () => {
    for (let i = 0; i < 5; i++) {
      const id = (await createMonitor({ target: { kind: 'search', keywords: 'rust' }, schedule: 'manual' })).body.data.id;
      const [renamed, paused] = await Promise.all([
        svc.request('PATCH', `/v1/monitors/${id}`, { key, body: { name: `renamed ${i}` } }),
        svc.request('PATCH', `/v1/monitors/${id}`, { key, body: { status: 'paused' } }),
      ]);
      expect([renamed.status, paused.status]).toEqual([200, 200]);
      expect((await svc.request('GET', `/v1/monitors/${id}`, { key })).body.data).toMatchObject({ name: `renamed ${i}`, status: 'paused' });
    }
  });

  it('refuses run-now with 409 while paused or archived', async () => {
    const id = (await createMonitor({ target: { kind: 'search', keywords: 'rust' }, schedule: 'manual' })).body.data.id;
    for (const status of ['paused', 'archived']) {
      await svc.request('PATCH', `/v1/monitors/${id}`, { key, body: { status } });
      const res = await svc.request('POST', `/v1/monitors/${id}/run`, { key });
      expect(res.status).toBe(409);
      expect(res.body.error.details.status).toBe(status);
    }
  });

  it('needs monitors:read to list and monitors:write to create', async () => {
    const reader = await svc.newKey({ scopes: ['monitors:read'] });
    expect((await svc.request('GET', '/v1/monitors', { key: reader.key })).status).toBe(200);
    expect((await createMonitor({ target: { kind: 'search', keywords: 'rust' } }, reader.key)).status).toBe(403);
    const none = await svc.newKey({ scopes: ['read:social'] });
    expect((await svc.request('GET', '/v1/monitors', { key: none.key })).status).toBe(403);
  });
});

describe('only what is new', () => {
  it('reports a new forum post once, and neither its edit nor its crosspost again', async () => {
    const id = await baselined({ target: { kind: 'search', keywords: 'zebracorn' }, sources: ['forum'] });
    const post = forum().addPost({ subforum: 'programming', title: 'A zebracorn sighting', selftext: 'Striped and horned, seen near the bridge this morning.' });
    const first = await nextRun(id, 1);
    expect(first.run).toMatchObject({ status: 'succeeded', newResults: 1 });
    expect(first.results).toHaveLength(1);
    expect(first.results[0]).toMatchObject({ itemType: 'post', source: 'forum', externalId: post.id, title: 'A zebracorn sighting', communityName: 'programming', authorHandle: 'sim_user' });

    forum().editPost(post.id, { selftext: 'Striped and horned, seen near the bridge this morning. Edit: photos soon.' });
    forum().addPost({ subforum: 'pics', title: 'A zebracorn sighting', selftext: 'Crossposted.', crosspostOf: post.id });
    const second = await nextRun(id, 2);
    expect(second.run).toMatchObject({ status: 'succeeded', newResults: 0 });
    expect(second.run.resultsFound).toBe(2);
    expect(second.run.suppressed).toEqual({ seenId: 1, seenLink: 1, seenContent: 0, duplicateInRun: 0, filtered: 0, baseline: 0 });
    expect(second.results).toHaveLength(1);
  });

  it('reports a new microblog post once, and neither its edit nor its repost again', async () => {
    const id = await baselined({ target: { kind: 'search', keywords: 'quokkabot' }, sources: ['microblog'] });
    const author = microblog().userByName('simdevs')!.id;
    const post = microblog().addPost({ authorId: author, text: 'Meet quokkabot, our new release assistant for the whole team.' });
    const first = await nextRun(id, 1);
    expect(first.run.newResults).toBe(1);
    expect(first.results[0]).toMatchObject({ itemType: 'post', source: 'microblog', externalId: post.id, authorHandle: 'simdevs' });

    microblog().editPost(post.id, 'Meet quokkabot, our new release assistant for the whole team (now with docs).');
    const other = [...microblog().users.values()].find((user) => user.id !== author && !user.protected && !user.suspended)!;
    microblog().repost(other.id, post.id);
    const second = await nextRun(id, 2);
    expect(second.run).toMatchObject({ status: 'succeeded', newResults: 0 });
    expect(second.results).toHaveLength(1);
  });

  it('takes a new baseline at once when its target changes, reporting only what is published after the change', async () => {
    forum().addPost({ subforum: 'pics', title: 'Already there before the change', selftext: 'Old news.' });
    const id = await baselined({ target: { kind: 'subforum', subforum: 'programming' }, schedule: 'manual' });
    const changed = await svc.request('PATCH', `/v1/monitors/${id}`, { key, body: { target: { kind: 'subforum', subforum: 'pics' } } });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    const [rebaseline] = await finishedRuns(svc, key, id, 2);
    expect(rebaseline).toMatchObject({ status: 'succeeded', newResults: 0 });
    expect(rebaseline.suppressed.baseline).toBeGreaterThan(0);
    expect((await svc.request('GET', `/v1/monitors/${id}/results`, { key })).body.data).toEqual([]);
    // The same target spelled another way, or a change of name, is no change of what it watches: no run is queued.
    const respelled = await svc.request('PATCH', `/v1/monitors/${id}`, { key, body: { target: { kind: 'subforum', subforum: 'r/pics' }, name: 'pics' } });
    expect(respelled.status, JSON.stringify(respelled.body)).toBe(200);
    expect((await svc.request('GET', `/v1/monitors/${id}/runs`, { key })).body.data).toHaveLength(2);
    const post = forum().addPost({ subforum: 'pics', title: 'Published after the change', selftext: 'New.' });
    const { run, results } = await nextRun(id, 2);
    expect(run.newResults).toBe(1);
    expect(results.map((result: { externalId: string }) => result.externalId)).toEqual([post.id]);
    // Changed while paused: the baseline is taken when it is resumed.
    await svc.request('PATCH', `/v1/monitors/${id}`, { key, body: { status: 'paused', target: { kind: 'subforum', subforum: 'programming' } } });
    expect((await svc.request('GET', `/v1/monitors/${id}/runs`, { key })).body.data).toHaveLength(3);
    forum().addPost({ subforum: 'programming', title: 'Published while it was paused', selftext: 'Before the baseline.' });
    await svc.request('PATCH', `/v1/monitors/${id}`, { key, body: { status: 'active' } });
    const [resumed] = await finishedRuns(svc, key, id, 4);
    expect(resumed).toMatchObject({ status: 'succeeded', newResults: 0 });
    expect(resumed.suppressed.baseline).toBe(1);
  });

  // The test holds the run's lock in a transaction while PATCHes commit: on PGlite's one connection nothing else runs
  // while a transaction is open, so the race it pins cannot happen there and the PATCH would wait forever.
  it.runIf(process.env.TEST_DATABASE_URL)('takes its baseline in a run during which a PATCH only reorders its sources (no change of what it watches; needs a PostgreSQL server, skipped on PGlite)', async () => {
    const id = await baselined({ target: { kind: 'search', keywords: 'okapiform' }, sources: ['forum', 'microblog'], schedule: 'manual' });
    const db = sqlDbFromOrm(svc.service.orm);
    const waiting = () => db.all(`select 1 from pg_locks where locktype = 'advisory' and not granted and database = (select oid from pg_database where datname = current_database())`);
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    // The lock a run takes to record its results, held here: the rebaseline run reads, then waits, while the PATCH commits.
    const held = db.transaction(async (tx) => {
      await tx.all(`select pg_advisory_xact_lock(hashtext('monitor-run:' || ?))`, [id]);
      const changed = await svc.request('PATCH', `/v1/monitors/${id}`, { key, body: { target: { kind: 'search', keywords: 'okapiforms' } } });
      expect(changed.status, JSON.stringify(changed.body)).toBe(200);
      await until(async () => ({ status: 200, body: (await waiting()).length, headers: new Headers() }), (n) => n > 0);
      const reordered = await svc.request('PATCH', `/v1/monitors/${id}`, { key, body: { sources: ['microblog', 'forum'] } });
      expect(reordered.status, JSON.stringify(reordered.body)).toBe(200);
      await released;
    });
    release();
    await held;
    const [rebaseline] = await finishedRuns(svc, key, id, 2);
    expect(rebaseline).toMatchObject({ status: 'succeeded', newResults: 0 });
    // The baseline was taken: the next run reports what is new, rather than taking it as a baseline.
    const post = forum().addPost({ subforum: 'programming', title: 'okapiforms, published after the baseline', selftext: 'New.' });
    const { run, results } = await nextRun(id, 2);
    expect(run.newResults).toBe(1);
    expect(results.map((result: { externalId: string }) => result.externalId)).toEqual([post.id]);
  });

  it('watches a forum thread for new comments, reported as itemType comment', async () => {
    const post = forum().addPost({ subforum: 'programming', title: 'Thread to watch', selftext: 'Comments welcome.' });
    forum().addComment({ postId: post.id, body: 'First!' });
    const id = await baselined({ target: { kind: 'forum_thread', post: `https://www.reddit.com/r/programming/comments/${post.id}/thread_to_watch/` } });
    const reply = forum().addComment({ postId: post.id, body: 'A second comment, written after the baseline.' });
    const { run, results } = await nextRun(id, 1);
    expect(run.newResults).toBe(1);
    expect(results[0]).toMatchObject({ itemType: 'comment', source: 'forum', externalId: reply.id, body: 'A second comment, written after the baseline.' });
  });

  it('backfills the newest N items on the first run when asked', async () => {
    const created = await createMonitor({ target: { kind: 'microblog_user', user: 'simdevs' }, backfill: 2, schedule: 'manual' });
    const [run] = await finishedRuns(svc, key, created.body.data.id, 1);
    expect(run.newResults).toBe(2);
    const results = (await svc.request('GET', `/v1/monitors/${created.body.data.id}/results`, { key })).body.data;
    expect(results).toHaveLength(2);
  });

  it('lists the results of one run newest item first', async () => {
    const base = Math.floor(Date.now() / 1000) - 3600;
    // Published an hour ago, a minute apart, added out of order.
    const posts = [3, 0, 4, 1, 2].map((minute) => ({ minute, post: forum().addPost({ subforum: 'programming', title: `ocelotrix ${minute}`, selftext: 'In order.', at: base + minute * 60 }) }));
    const created = await createMonitor({ target: { kind: 'search', keywords: 'ocelotrix' }, sources: ['forum'], backfill: 5, schedule: 'manual' });
    const [run] = await finishedRuns(svc, key, created.body.data.id, 1);
    expect(run.newResults).toBe(5);
    const results = (await svc.request('GET', `/v1/monitors/${created.body.data.id}/results`, { key })).body.data;
    const newestFirst = [...posts].sort((a, b) => b.minute - a.minute).map(({ post }) => post.id);
    expect(results.map((result: { externalId: string }) => result.externalId)).toEqual(newestFirst);
  });

  it('reports nothing old as new when the target of a monitor created with backfill changes: backfill is the creation’s', async () => {
    forum().addPost({ subforum: 'pics', title: 'Old pics post one', selftext: 'Before the change.' });
    forum().addPost({ subforum: 'pics', title: 'Old pics post two', selftext: 'Before the change.' });
    // Nothing listens on port 9: the deliveries are recorded whether or not they get through.
    const hook = (await svc.request('POST', '/v1/webhooks', { key, body: { name: 'backfill', url: 'http://127.0.0.1:9/backfill' } })).body.data;
    const created = await createMonitor({ target: { kind: 'subforum', subforum: 'programming' }, backfill: 2, schedule: 'manual', webhookId: hook.id });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.data.id as string;
    const [first] = await finishedRuns(svc, key, id, 1);
    expect(first).toMatchObject({ status: 'succeeded', newResults: 2 });
    const deliveries = async () => (await svc.request('GET', `/v1/webhook-deliveries?webhookId=${hook.id}`, { key })).body.data.length;
    expect(await deliveries()).toBe(2);
    const changed = await svc.request('PATCH', `/v1/monitors/${id}`, { key, body: { target: { kind: 'subforum', subforum: 'pics' } } });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    const [rebaseline] = await finishedRuns(svc, key, id, 2);
    expect(rebaseline).toMatchObject({ status: 'succeeded', newResults: 0 });
    expect(rebaseline.suppressed.baseline).toBeGreaterThanOrEqual(2);
    expect((await svc.request('GET', `/v1/monitors/${id}/results?limit=100`, { key })).body.data).toHaveLength(2);
    expect(await deliveries()).toBe(2);
    // Resuming after a change made while paused takes the same path.
    await svc.request('PATCH', `/v1/monitors/${id}`, { key, body: { status: 'paused', target: { kind: 'subforum', subforum: 'programming' } } });
    forum().addPost({ subforum: 'programming', title: 'Published while it was paused', selftext: 'Before the baseline.' });
    await svc.request('PATCH', `/v1/monitors/${id}`, { key, body: { status: 'active' } });
    const [resumed] = await finishedRuns(svc, key, id, 3);
    expect(resumed).toMatchObject({ status: 'succeeded', newResults: 0 });
    expect(await deliveries()).toBe(2);
  });
});

describe('run-now and money', () => {
  it('is idempotent while a run is queued', async () => {
    const local = await startTestService({ shareDatabaseWith: undefined, jobs: { processEvery: 100, autostart: false } });
    try {
      const { key: k } = await local.newKey({ scopes: ['read:social', 'monitors:write'] });
      const id = (await local.request('POST', '/v1/monitors', { key: k, body: { name: 'q', target: { kind: 'search', keywords: 'rust' }, schedule: 'manual' } })).body.data.id;
      const [a, b] = await Promise.all([local.request('POST', `/v1/monitors/${id}/run`, { key: k }), local.request('POST', `/v1/monitors/${id}/run`, { key: k })]);
      expect(a.status).toBe(202);
      expect(a.body.data).toEqual({ jobId: expect.any(String), queued: true });
      expect(b.body.data.jobId).toBe(a.body.data.jobId);
      const runs = (await local.request('GET', `/v1/monitors/${id}/runs`, { key: k })).body.data;
      // The creation's baseline run is the one queued: run-now joined it.
      expect(runs).toHaveLength(1);
      expect(runs[0]).toMatchObject({ id: a.body.data.jobId, status: 'queued', startedAt: null });
      await local.service.jobs.start();
      const [done] = await finishedRuns(local, k, id, 1);
      expect(done.status).toBe('succeeded');
    } finally {
      await local.close();
    }
  });

  it('bills a run by what it read, and the balance falls by exactly that', async () => {
    // An account of its own, where no other monitor is spending.
    const own = (await svc.newKey({ scopes: ['read:social', 'monitors:write', 'usage:read'] })).key;
    const id = await baselined({ target: { kind: 'search', keywords: 'rust' }, sources: ['forum', 'microblog'] }, own);
    const before = (await svc.request('GET', '/v1/usage', { key: own })).body.data.balance;
    const { run } = await nextRun(id, 1, own);
    const after = (await svc.request('GET', '/v1/usage', { key: own })).body.data.balance;
    // One forum read and one microblog read: at least their two 1-credit minimums.
    expect(run.creditsUsed).toBeGreaterThanOrEqual(2);
    expect(before - after).toBe(run.creditsUsed);
  });

  it('counts in resultsFound every item it priced, those the keywords leave out included: creditsUsed = 1 + 3 × resultsFound', async () => {
    const own = (await svc.newKey({ scopes: ['read:social', 'monitors:write', 'usage:read'] })).key;
    // The forum's search has no exclusion: it returns both, and the local check leaves the lake out.
    forum().addPost({ subforum: 'programming', title: 'narwhalix by the lake', selftext: 'Excluded.' });
    forum().addPost({ subforum: 'programming', title: 'narwhalix at sea', selftext: 'Kept.' });
    const id = await baselined({ target: { kind: 'search', keywords: 'narwhalix -lake' }, sources: ['forum'], schedule: 'manual' }, own);
    const [baseline] = await finishedRuns(svc, own, id, 1);
    expect(baseline).toMatchObject({ resultsFound: 2, creditsUsed: 7 });
    expect(baseline.suppressed).toMatchObject({ filtered: 1, baseline: 1 });
    forum().addPost({ subforum: 'programming', title: 'narwhalix lake again', selftext: 'Excluded too.' });
    const { run } = await nextRun(id, 1, own);
    expect(run).toMatchObject({ resultsFound: 3, newResults: 0, creditsUsed: 1 + 3 * 3 });
    expect(run.suppressed).toMatchObject({ seenId: 1, filtered: 2 });
    const { seenId, seenLink, seenContent, duplicateInRun, filtered, baseline: silent } = run.suppressed;
    expect(run.newResults + seenId + seenLink + seenContent + duplicateInRun + filtered + silent).toBe(run.resultsFound);
  });

  it('fails a run with an error summary and charges nothing when spending is paused or the upstream is down', async () => {
    const own = await svc.newKey({ scopes: ['read:social', 'monitors:write', 'usage:read'] });
    const id = await baselined({ target: { kind: 'search', keywords: 'rust' }, sources: ['forum'] }, own.key);
    await svc.operator('POST', `/operator/workspaces/${own.workspaceId}/pause`, {});
    const paused = await nextRun(id, 1, own.key);
    expect(paused.run).toMatchObject({ status: 'failed', creditsUsed: 0 });
    expect(paused.run.errorSummary).toMatch(/^spending_paused/);
    await svc.operator('POST', `/operator/workspaces/${own.workspaceId}/resume`, {});

    svc.service.platforms.sims.forum!.faults.add({ route: '/search', kind: 'status', status: 503 });
    try {
      const down = await nextRun(id, 2, own.key);
      expect(down.run).toMatchObject({ status: 'failed', creditsUsed: 0 });
      expect(down.run.errorSummary).toMatch(/^upstream_unavailable/);
    } finally {
      svc.service.platforms.sims.forum!.faults.clear();
    }
    const usage = (await svc.request('GET', '/v1/usage', { key: own.key })).body.data;
    expect(usage.reserved).toBe(0);
  });
});

describe('a run’s charge', () => {
  it('is in the next call’s x-credits-remaining on the instance that ran it', async () => {
    const { workspaceId } = await fundedWorkspace(svc, 1_000);
    const { key: own } = await svc.newKey({ workspaceId, scopes: ['read:social', 'monitors:write', 'usage:read'] });
    forum().addPost({ subforum: 'programming', title: 'chargedpuffin spotted', selftext: 'It paid for the fish.' });
    const remaining = async () => Number((await svc.request('GET', '/v1/whoami', { key: own })).headers.get('x-credits-remaining'));
    const before = await remaining();
    const created = await createMonitor({ target: { kind: 'search', keywords: 'chargedpuffin' }, sources: ['forum'], schedule: 'manual' }, own);
    const [run] = await finishedRuns(svc, own, created.body.data.id, 1);
    expect(run.creditsUsed).toBeGreaterThan(0);
    // Before: the balance this instance knew before the run, for up to 5 s (spec review h, L2).
    expect(await remaining()).toBe(before - run.creditsUsed);
  });
});

describe('a run the account cannot pay for', () => {
  it('fails with insufficient_credits and charges nothing: the balance never goes negative', async () => {
    const { workspaceId } = await fundedWorkspace(svc, 3);
    const { key: own } = await svc.newKey({ workspaceId, scopes: ['read:social', 'monitors:write', 'usage:read'] });
    // One matching post costs 1 + 3 credits to read: more than the 3 the account holds.
    forum().addPost({ subforum: 'programming', title: 'brokepenguin spotted', selftext: 'It could not afford the fish.' });
    const created = await createMonitor({ target: { kind: 'search', keywords: 'brokepenguin' }, sources: ['forum'], schedule: 'manual' }, own);
    const [run] = await finishedRuns(svc, own, created.body.data.id, 1);
    expect(run).toMatchObject({ status: 'failed', creditsUsed: 0, newResults: 0 });
    expect(run.errorSummary).toMatch(/^insufficient_credits: /);
    // A failed run is the monitor's last run too (spec review h, L1: before, lastRunAt stayed null).
    expect((await svc.request('GET', `/v1/monitors/${created.body.data.id}`, { key: own })).body.data.lastRunAt).toBe(run.finishedAt);
    const usage = (await svc.request('GET', '/v1/usage', { key: own })).body.data;
    expect(usage).toMatchObject({ balance: 3, reserved: 0 });
  });
});

describe('a run refused for credits held by the account’s other runs', () => {
  it('tries again once they settle, and fails as insufficient_credits when the balance cannot pay it, not credits_held', async () => {
    const { workspaceId } = await fundedWorkspace(svc, 82);
    const { key: own } = await svc.newKey({ workspaceId, scopes: ['read:social', 'monitors:write', 'usage:read'] });
    // 100 matching posts cost 1 + 300 credits to read: more than the 82 the account holds. Two monitors run at once:
    // the first to be admitted holds all 82, so the other is first refused for credits held.
    for (let i = 0; i < 100; i++) forum().addPost({ subforum: 'programming', title: `brokeotter ${i}`, selftext: 'It could not afford the fish.' });
    const body = { target: { kind: 'search', keywords: 'brokeotter' }, sources: ['forum'], schedule: 'manual' };
    const created = await Promise.all([createMonitor(body, own), createMonitor(body, own)]);
    for (const monitor of created) {
      const [run] = await finishedRuns(svc, own, monitor.body.data.id, 1, 400);
      expect(run).toMatchObject({ status: 'failed', creditsUsed: 0 });
      expect(run.errorSummary).toMatch(/^insufficient_credits: /);
    }
    expect((await svc.request('GET', '/v1/usage', { key: own })).body.data).toMatchObject({ balance: 82, reserved: 0 });
  });
});

describe.runIf(process.env.TEST_DATABASE_URL)('schedules (two instances need a PostgreSQL server; skipped on PGlite)', () => {
  it('runs a due scheduled run once even with two instances on one database', async () => {
    const upstreams = { FORUM_UPSTREAM_URL: svc.service.platforms.simulated.forum, MICROBLOG_UPSTREAM_URL: svc.service.platforms.simulated.microblog };
    const second = await startTestService({ shareDatabaseWith: svc, env: upstreams, jobs: { processEvery: 100 } });
    try {
      const id = await baselined({ target: { kind: 'search', keywords: 'rust' }, sources: ['forum'], schedule: 'weekly' });
      // Make the monitor's schedule due now, as if a week had passed.
      await svc.service.orm.em.getConnection().execute(`update "agenda_jobs" set "next_run_at" = now() where "name" = 'monitor.schedule' and "data"->>'monitorId' = ?`, [id]);
      const runs = await finishedRuns(svc, key, id, 2);
      await until(() => svc.request('GET', `/v1/monitors/${id}`, { key }), () => true, 10);
      const [{ next }] = await svc.service.orm.em
        .getConnection()
        .execute<{ next: Date }[]>(`select "next_run_at" as "next" from "agenda_jobs" where "name" = 'monitor.schedule' and "data"->>'monitorId' = ?`, [id], 'all');
      expect(new Date(next).getTime()).toBeGreaterThan(Date.now() + 6 * 86_400_000);
      // The monitor shows the schedule's own next firing.
      expect((await svc.request('GET', `/v1/monitors/${id}`, { key })).body.data.nextRunAt).toBe(new Date(next).toISOString());
      const all = (await svc.request('GET', `/v1/monitors/${id}/runs`, { key })).body.data;
      expect(all).toHaveLength(2);
      expect(runs[0].status).toBe('succeeded');
    } finally {
      await second.close();
    }
  });
});
