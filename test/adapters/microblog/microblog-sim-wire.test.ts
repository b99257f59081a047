import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_QUERY_IDS, type MicroblogOperation } from '../../../adapters/microblog/microblog-operations.ts';
import { startMicroblogSim, type MicroblogSim } from '../../../adapters/sim/microblog/microblog-sim.ts';
import { SIM_ACCOUNTS } from '../../../adapters/sim/microblog/microblog-world-generator.ts';
import { loadFixture } from './fixture-lookup.ts';
import { mapRecordedBody } from './recorded-body-mapping.ts';

/**
 * Raw sim responses over real HTTP go through the very parser and shape checks the recorded fixtures go through
 * (recorded-body-mapping.ts), and carry the same envelopes.
 */
let sim: MicroblogSim;

async function raw(operation: MicroblogOperation, variables: Record<string, unknown>) {
  const url = `${sim.url}/i/api/graphql/${DEFAULT_QUERY_IDS[operation]}/${operation}?variables=${encodeURIComponent(JSON.stringify(variables))}&features=%7B%7D`;
  const res = await fetch(url);
  return { status: res.status, body: await res.json() };
}

const id = (name: string) => sim.world.userByName(name)!.id;

beforeAll(async () => {
  sim = await startMicroblogSim({ seed: 7 });
});
afterAll(async () => {
  await sim.close();
});

describe('simulated microblog speaks the recorded wire format', () => {
  it('TweetDetail: focal, modules, both cursor shapes; every post validates', async () => {
    const head = sim.world.timeline.find((p) => p.text.startsWith('A thread about caches'))!;
    const { body } = await raw('TweetDetail', { focalTweetId: head.id, rankingMode: 'Relevance' });
    const mapped = mapRecordedBody('TweetDetail', body);
    expect(mapped.posts.length).toBeGreaterThan(10);
    const timeline = mapped.timeline!;
    expect(timeline.items.some((i) => i.moduleId?.startsWith('conversationthread-'))).toBe(true);
    // The bottom cursor is the wrapped item shape, as in TweetDetail-note-tweet.json.
    const bottomEntry = body.data.threaded_conversation_with_injections_v2.instructions[1].entries.at(-1);
    expect(bottomEntry.content.itemContent.__typename).toBe('TimelineTimelineCursor');
    expect(timeline.bottom).not.toBeNull();
  });

  it('TweetDetail on an Article post sends the full content_state, which maps to a valid Article', async () => {
    const post = [...sim.world.posts.values()].find((p) => p.articleId && !p.repostOfId)!;
    const { body } = await raw('TweetDetail', { focalTweetId: post.id });
    const mapped = mapRecordedBody('TweetDetail', body);
    expect(mapped.articles).toHaveLength(1);
    expect(mapped.articles[0].blocks!.length).toBeGreaterThan(10);
  });

  it('TweetDetail of a missing post is the platform error body', async () => {
    const { body } = await raw('TweetDetail', { focalTweetId: '1' });
    expect(Object.keys(body).sort()).toEqual(Object.keys(loadFixture('SearchTimeline-error-query-too-long.json')).sort());
    expect(body.errors[0].code).toBe(144);
  });

  it('TweetResultsByRestIds: one slot per id, empty for unknown ids', async () => {
    const ids = sim.world.timeline.slice(0, 5).map((p) => p.id);
    const { body } = await raw('TweetResultsByRestIds', { tweetIds: [...ids, '42'] });
    expect(body.data.tweetResult).toHaveLength(6);
    expect(body.data.tweetResult[5]).toEqual({});
    const mapped = mapRecordedBody('TweetResultsByRestIds', { data: { tweetResult: body.data.tweetResult.slice(0, 5) } });
    expect(mapped.posts.length + mapped.unavailable.length).toBe(5);
  });

  it('users in all three shapes map to valid profiles; suspended is UserUnavailable', async () => {
    for (const name of [SIM_ACCOUNTS.org, SIM_ACCOUNTS.legacyShape, SIM_ACCOUNTS.transitionalShape]) {
      const { body } = await raw('UserByScreenName', { screen_name: name });
      const mapped = mapRecordedBody('UserByScreenName', body);
      expect(mapped.profiles[0].username).toBe(name);
    }
    const legacy = await raw('UserByScreenName', { screen_name: SIM_ACCOUNTS.legacyShape });
    expect(legacy.body.data.user.result.legacy.screen_name).toBe(SIM_ACCOUNTS.legacyShape);
    const modern = await raw('UserByScreenName', { screen_name: SIM_ACCOUNTS.org });
    expect(modern.body.data.user.result.legacy).toBeUndefined();
    const suspended = await raw('UserByScreenName', { screen_name: SIM_ACCOUNTS.suspended });
    expect(mapRecordedBody('UserByScreenName', suspended.body).unavailable).toEqual(['Suspended']);
  });

  it('user timelines, followers, affiliates, list and search timelines validate', async () => {
    const org = id(SIM_ACCOUNTS.org);
    const cases: Array<[MicroblogOperation, Record<string, unknown>, 'posts' | 'profiles']> = [
      ['UserTweets', { userId: org, count: 20 }, 'posts'],
      ['UserTweetsAndReplies', { userId: org, count: 20 }, 'posts'],
      ['UserMedia', { userId: org, count: 20 }, 'posts'],
      ['UserHighlightsTweets', { userId: org, count: 20 }, 'posts'],
      ['UserBusinessProfileTeamTimeline', { userId: org, count: 20 }, 'profiles'],
      ['Followers', { userId: org }, 'profiles'],
      ['Following', { userId: id(SIM_ACCOUNTS.blue) }, 'profiles'],
      ['ListMembers', { listId: '1500000000000000001', count: 20 }, 'profiles'],
      ['ListLatestTweetsTimeline', { listId: '1500000000000000001', count: 20 }, 'posts'],
      ['SearchTimeline', { rawQuery: 'api', product: 'Latest', count: 20 }, 'posts'],
      ['SearchTimeline', { rawQuery: 'user', product: 'People', count: 20 }, 'profiles'],
    ];
    for (const [op, vars, kind] of cases) {
      const { body } = await raw(op, vars);
      const mapped = mapRecordedBody(op, body);
      expect(mapped[kind].length, `${op} ${JSON.stringify(vars)}`).toBeGreaterThan(0);
      expect(mapped.timeline!.bottom, op).not.toBeNull();
      expect(mapped.timeline!.top, op).not.toBeNull();
    }
  });

  it('Followers pages hold 70 accounts, like the platform', async () => {
    const { body } = await raw('Followers', { userId: id(SIM_ACCOUNTS.org), count: 20 });
    expect(mapRecordedBody('Followers', body).profiles).toHaveLength(70);
  });

  it('UserTweets puts the pinned post in a TimelinePinEntry', async () => {
    const { body } = await raw('UserTweets', { userId: id(SIM_ACCOUNTS.org), count: 20 });
    const mapped = mapRecordedBody('UserTweets', body);
    expect(mapped.timeline!.items.filter((i) => i.kind === 'tweet' && i.pinned)).toHaveLength(1);
  });

  it('a too long search query gets the recorded error body', async () => {
    const { body } = await raw('SearchTimeline', { rawQuery: 'x'.repeat(600), product: 'Latest' });
    const recorded = loadFixture('SearchTimeline-error-query-too-long.json');
    expect(Object.keys(body.errors[0]).sort()).toEqual(Object.keys(recorded.errors[0]).sort());
    expect(body.errors[0].message).toBe('BadRequest: Raw query length 600 exceeds max allowed 512');
    expect(body.data).toEqual({});
  });

  it('every post in the world validates when served (posts, quotes, reposts, notes, media, articles, cards)', async () => {
    const ids = [...sim.world.posts.keys()];
    let mappedPosts = 0;
    for (let i = 0; i < ids.length; i += 100) {
      const { body } = await raw('TweetResultsByRestIds', { tweetIds: ids.slice(i, i + 100) });
      const slots = body.data.tweetResult.filter((s: object) => Object.keys(s).length > 0);
      mappedPosts += mapRecordedBody('TweetResultsByRestIds', { data: { tweetResult: slots } }).posts.length;
    }
    expect(mappedPosts).toBeGreaterThan(ids.length * 0.8);
  });
});
