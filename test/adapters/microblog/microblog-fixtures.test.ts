import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mapRecordedBody, operationOfFixture } from './recorded-body-mapping.ts';
import { MICROBLOG_FIXTURES } from './fixture-lookup.ts';

const DIR = MICROBLOG_FIXTURES;
const files = readdirSync(DIR).filter((f) => f.endsWith('.json')).sort();

/** What each recording must yield: posts, profiles, unavailable items, articles (all validated by the shapes). */
const EXPECTED: Record<string, { posts?: number; profiles?: number; unavailable?: number; articles?: number; about?: boolean; errors?: number }> = {
  'AboutAccountQuery.json': { about: true },
  'Followers.json': { profiles: 7 },
  'ListLatestTweetsTimeline.json': { posts: 11 },
  'ListMembers.json': { profiles: 20 },
  'Retweeters.json': { profiles: 19, unavailable: 1 },
  'SearchTimeline-error-query-too-long.json': { errors: 1 },
  'SearchTimeline.json': { posts: 7 },
  'TweetDetail-article.json': { posts: 4, articles: 1 },
  'TweetDetail-audiospace-card.json': { posts: 1 },
  'TweetDetail-conversation.json': { posts: 8 },
  'TweetDetail-note-tweet.json': { posts: 11 },
  'TweetDetail-poll-card.json': { posts: 4 },
  'TweetDetail-quote-and-retweet.json': { posts: 2 },
  'TweetDetail-quote-video.json': { posts: 2 },
  'TweetDetail-video.json': { posts: 11 },
  'TweetDetail-visibility-limited-quote.json': { posts: 1 },
  'TweetResultsByRestIds-community-sensitive.json': { posts: 1 },
  'TweetResultsByRestIds.json': { posts: 1 },
  'UserByScreenName-2025-legacy.json': { profiles: 1 },
  'UserByScreenName-suspended.json': { unavailable: 1 },
  'UserByScreenName.json': { profiles: 1 },
  'UserTweets.json': { posts: 8, profiles: 3, articles: 1 },
  'UserTweetsAndReplies.json': { posts: 11 },
  'UsersByRestIds-element-excerpt.json': { profiles: 1 },
};

describe('every microblog fixture maps to objects that satisfy the spec shapes', () => {
  it('has an expectation for every recorded file (a new fixture cannot be skipped silently)', () => {
    expect(files).toEqual(Object.keys(EXPECTED).sort());
  });

  for (const file of files) {
    it(file, () => {
      const body = JSON.parse(readFileSync(join(DIR, file), 'utf8'));
      const mapped = mapRecordedBody(operationOfFixture(file), body);
      const want = EXPECTED[file];
      expect({
        posts: mapped.posts.length,
        profiles: mapped.profiles.length,
        unavailable: mapped.unavailable.length,
        articles: mapped.articles.length,
        about: mapped.about !== null,
        errors: mapped.errors.length,
      }).toEqual({
        posts: want.posts ?? 0,
        profiles: want.profiles ?? 0,
        unavailable: want.unavailable ?? 0,
        articles: want.articles ?? 0,
        about: want.about ?? false,
        errors: want.errors ?? 0,
      });
      for (const post of mapped.posts) {
        expect(post.id).toMatch(/^[0-9]{1,19}$/);
        expect(post.url).toBe(`https://x.com/${post.author.username}/status/${post.id}`);
        expect(post.text).not.toMatch(/&amp;|&lt;|&gt;/);
      }
    });
  }
});
