import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMicroblogClient, type MicroblogClient } from '../../../adapters/microblog/microblog-client.ts';
import { microblogClientOptionsFromEnv } from '../../../adapters/microblog/microblog-config.ts';
import { buildSearchQuery, SearchFilterError } from '../../../adapters/microblog/microblog-search-builder.ts';
import { startMicroblogSim, type MicroblogSim } from '../../../adapters/sim/microblog/microblog-sim.ts';
import { SIM_ACCOUNTS } from '../../../adapters/sim/microblog/microblog-world-generator.ts';

describe('post search query builder', () => {
  it('combines every filter with AND in the platform operator syntax', () => {
    expect(
      buildSearchQuery({
        text: 'cache api', from: ['@alice'], to: ['bob'], mentions: ['carol'], hashtags: ['#Launch'], lang: 'en',
        since: '2026-06-01', until: '2026-08-01', minLikes: 10, minReposts: 2, minReplies: 1, hasMedia: true, hasImages: false,
        hasVideos: true, hasLinks: true, replies: 'exclude', quotes: 'only', reposts: 'include', verifiedOnly: true,
      }),
    ).toBe(
      'cache api from:alice to:bob @carol #Launch lang:en since:2026-06-01 until:2026-08-01 min_faves:10 min_retweets:2 min_replies:1 filter:media -filter:images filter:videos filter:links -filter:replies filter:quote include:nativeretweets filter:blue_verified',
    );
  });

  it('neutralises operators typed into free text and refuses injected filter values', () => {
    expect(buildSearchQuery({ text: 'hello from:evil -filter:media "x" OR (a' })).toBe('hello "from:evil" "-filter:media" "x" "OR" "(a"');
    for (const bad of [{ from: ['alice since:2020-01-01'] }, { hashtags: ['a b'] }, { lang: 'en filter:media' }, { since: '2026-13-45' }, { minLikes: -1 }]) {
      expect(() => buildSearchQuery(bad)).toThrow(SearchFilterError);
    }
    expect(() => buildSearchQuery({})).toThrow(SearchFilterError);
    expect(() => buildSearchQuery({ text: 'x', until: '2026-04-31' })).toThrow(expect.objectContaining({ field: 'until' }));
    expect(() => buildSearchQuery({ text: 'x'.repeat(600) })).toThrow(/512/);
    // 300 emoji are 300 code points but 600 UTF-16 units: over the limit however the platform counts.
    expect(() => buildSearchQuery({ text: '😀'.repeat(300) })).toThrow(/512/);
    expect(buildSearchQuery({ text: '😀'.repeat(256) })).toHaveLength(512);
  });
});

describe('free text as typed into the platform search box', () => {
  it('keeps a balanced quoted phrase as one term, straight or curly quotes', () => {
    expect(buildSearchQuery({ text: '"machine learning"' })).toBe('"machine learning"');
    expect(buildSearchQuery({ text: 'about “deep  learning” models' })).toBe('about "deep learning" models');
    // Inside a phrase operators are literal words of the phrase.
    expect(buildSearchQuery({ text: '"from:evil lang:en"' })).toBe('"from:evil lang:en"');
  });

  it('a quote without its pair is dropped, an empty phrase left out', () => {
    expect(buildSearchQuery({ text: 'say "hello world' })).toBe('say hello world');
    expect(buildSearchQuery({ text: 'a "" b' })).toBe('a b');
  });

  it('a leading minus excludes a word or a phrase, never a filter', () => {
    expect(buildSearchQuery({ text: 'cats -dogs' })).toBe('cats -dogs');
    expect(buildSearchQuery({ text: 'cats -"hot dogs"' })).toBe('cats -"hot dogs"');
    expect(buildSearchQuery({ text: 'cats -from:evil -@x -#tag -(a -OR - --x' })).toBe('cats "-from:evil" "-@x" "-#tag" "-(a" "-OR" "-" "--x"');
  });

  it('since and until must be calendar dates (leap days included)', () => {
    expect(() => buildSearchQuery({ since: '2026-02-30' })).toThrow(expect.objectContaining({ field: 'since' }));
    expect(() => buildSearchQuery({ since: '2026-02-29' })).toThrow(expect.objectContaining({ field: 'since' }));
    expect(buildSearchQuery({ since: '2028-02-29', until: '2028-03-01' })).toBe('since:2028-02-29 until:2028-03-01');
  });
});

describe('built queries against the simulated platform', () => {
  let sim: MicroblogSim;
  let client: MicroblogClient;
  beforeAll(async () => {
    sim = await startMicroblogSim({ seed: 4 });
    client = createMicroblogClient({ baseUrl: sim.url });
  });
  afterAll(async () => {
    await client.close();
    await sim.close();
  });

  it('each filter holds on every returned post', async () => {
    const blue = sim.world.userByName(SIM_ACCOUNTS.blue)!;
    const byAlice = await client.searchPosts(buildSearchQuery({ from: [blue.username] }), 'Latest', { count: 50 });
    expect(byAlice.items.length).toBeGreaterThan(0);
    expect(byAlice.items.every((p) => p.author.username === blue.username)).toBe(true);
    const media = await client.searchPosts(buildSearchQuery({ text: 'api', hasMedia: true }), 'Latest', { count: 50 });
    expect(media.items.length).toBeGreaterThan(0);
    expect(media.items.every((p) => p.media.length > 0)).toBe(true);
    const liked = await client.searchPosts(buildSearchQuery({ minLikes: 1000 }), 'Top', { count: 20 });
    expect(liked.items.every((p) => (p.likeCount ?? 0) >= 1000)).toBe(true);
    const likes = liked.items.map((p) => p.likeCount ?? 0);
    expect(likes).toEqual([...likes].sort((a, b) => b - a));
    const noReplies = await client.searchPosts(buildSearchQuery({ text: 'api', replies: 'exclude' }), 'Latest', { count: 50 });
    expect(noReplies.items.every((p) => p.inReplyToId === null)).toBe(true);
    const onlyReposts = await client.searchPosts(buildSearchQuery({ reposts: 'only' }), 'Latest', { count: 20 });
    expect(onlyReposts.items.length).toBeGreaterThan(0);
    expect(onlyReposts.items.every((p) => p.repostedPost !== null)).toBe(true);
    const injected = await client.searchPosts(buildSearchQuery({ text: `from:${SIM_ACCOUNTS.org}` }), 'Latest', { count: 20 });
    expect(injected.items).toHaveLength(0);
    const api = await client.searchPosts(buildSearchQuery({ text: 'api' }), 'Latest', { count: 100 });
    const word = api.items.map((p) => p.text.toLowerCase()).flatMap((t) => t.split(/\s+/)).find((w) => /^[a-z]{4,}$/.test(w) && w !== 'api');
    expect(word).toBeDefined();
    const without = await client.searchPosts(buildSearchQuery({ text: `api -${word}` }), 'Latest', { count: 100 });
    expect(without.items.length).toBeGreaterThan(0);
    expect(without.items.every((p) => !p.text.toLowerCase().includes(word!))).toBe(true);
  });
});

describe('client configuration from the environment', () => {
  it('is null without MICROBLOG_UPSTREAM_URL and reads credentials and query ids', () => {
    expect(microblogClientOptionsFromEnv({})).toBeNull();
    expect(
      microblogClientOptionsFromEnv({
        MICROBLOG_UPSTREAM_URL: 'http://127.0.0.1:9', MICROBLOG_BEARER_TOKEN: 't', MICROBLOG_COOKIE: 'c=1', MICROBLOG_CSRF_TOKEN: 'x',
        MICROBLOG_QUERY_IDS: '{"TweetDetail":"abc"}', MICROBLOG_TIMEOUT_MS: '2500',
      }),
    ).toEqual({ baseUrl: 'http://127.0.0.1:9', bearerToken: 't', headers: { cookie: 'c=1', 'x-csrf-token': 'x' }, queryIds: { TweetDetail: 'abc' }, timeoutMs: 2500 });
  });
});
