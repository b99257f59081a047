import { describe, expect, it } from 'vitest';
import { mapArticle } from '../../../adapters/microblog/microblog-article-mapper.ts';
import { editControlOf, editVersionIds } from '../../../adapters/microblog/microblog-edit-history-mapper.ts';
import { checkResponse } from '../../../adapters/microblog/microblog-errors.ts';
import { mapPost, mapPostBase, unavailableTweetReason } from '../../../adapters/microblog/microblog-post-mapper.ts';
import { parseTimeline, timelineInstructions } from '../../../adapters/microblog/microblog-timeline-parser.ts';
import { isAvailableUser, mapAboutDetails, mapProfile, unavailableUserReason } from '../../../adapters/microblog/microblog-user-mapper.ts';
import { UpstreamError } from '../../../adapters/upstream/upstream-error.ts';
import { ArticleShape } from '../../../adapters/shapes/microblog-shapes.ts';
import { findTweet, loadFixture } from './fixture-lookup.ts';

/** One test per microblog trap of FIELD-NOTES.md part 2. */

function post(file: string, id: string) {
  const p = mapPost(findTweet(loadFixture(file), id));
  if (!p) throw new Error(`${id} did not map`);
  return p;
}

describe('2.1/2.2 envelopes, instructions, entries and cursors', () => {
  it('finds TimelineAddEntries when it is not the first instruction (Followers: index 3)', () => {
    const body = loadFixture('Followers.json');
    const instructions = timelineInstructions(body, 'Followers');
    expect(instructions!.findIndex((i) => i.type === 'TimelineAddEntries')).toBe(3);
    expect(parseTimeline(instructions).items).toHaveLength(7);
  });

  it('reads cursors as plain entries (Followers) and as wrapped timeline items (TweetDetail)', () => {
    const plain = parseTimeline(timelineInstructions(loadFixture('Followers.json'), 'Followers'));
    expect(plain.bottom).toBe('1872784690123924126|2085474371463282617');
    const wrapped = parseTimeline(timelineInstructions(loadFixture('TweetDetail-note-tweet.json'), 'TweetDetail'));
    expect(wrapped.bottom).toBe('NwAAAPAoHBlWmoC-gbPr9tcuzMbYucX0u4Iv_sO-3ZXLs4sv2oSxgdy--40viIC8te_S2dwuJQISFQQAAA');
  });

  it('finds ShowMore cursors inside conversation modules and ShowMoreThreads as a top-level entry', () => {
    const note = parseTimeline(timelineInstructions(loadFixture('TweetDetail-note-tweet.json'), 'TweetDetail'));
    expect(note.cursors.filter((c) => c.cursorType === 'ShowMore')).toHaveLength(3);
    const article = parseTimeline(timelineInstructions(loadFixture('TweetDetail-article.json'), 'TweetDetail'));
    expect(article.cursors.map((c) => c.cursorType)).toEqual(['ShowMoreThreads']);
  });

  it('keeps the pinned tweet of TimelinePinEntry apart from the entries', () => {
    const tl = parseTimeline(timelineInstructions(loadFixture('UserTweets.json'), 'UserTweets'));
    const pinned = tl.items.filter((i) => i.kind === 'tweet' && i.pinned);
    expect(pinned.map((i) => i.entryId)).toEqual(['tweet-2019881223666233717']);
    expect(tl.items.filter((i) => i.entryId === 'tweet-2019881223666233717')).toHaveLength(1);
  });

  it('turns a GraphQL error body with empty data into a typed error, never a raw exception', () => {
    const body = loadFixture('SearchTimeline-error-query-too-long.json');
    let caught: unknown;
    try {
      checkResponse({ status: 400, headers: {}, body }, 'SearchTimeline');
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(UpstreamError);
    // BadRequestError from source Client: the client's query is at fault, so no retry can help.
    expect(caught).toMatchObject({ kind: 'refused', field: 'query' });
    expect((caught as UpstreamError).message).toContain('Raw query length 2268 exceeds max allowed 512');
    const cursor = { errors: [{ message: 'BadRequest: Unknown request cursor', code: 214, extensions: { name: 'BadRequestError', source: 'Client', code: 214 } }], data: {} };
    expect(() => checkResponse({ status: 200, headers: {}, body: cursor }, 'SearchTimeline')).toThrow(expect.objectContaining({ kind: 'refused', field: 'cursor' }));
    // Other operations send only validated ids: their refusal is not the client's to fix.
    expect(() => checkResponse({ status: 400, headers: {}, body }, 'TweetDetail')).toThrow(expect.objectContaining({ kind: 'unavailable' }));
    const missing = { errors: [{ message: '_Missing: No status found with that ID.', code: 144 }], data: {} };
    expect(() => checkResponse({ status: 200, headers: {}, body: missing }, 'TweetDetail')).toThrow(
      expect.objectContaining({ kind: 'not_found' }),
    );
  });
});

describe('2.3 tweet and user result unions', () => {
  it('unwraps TweetWithVisibilityResults (here the quoted tweet)', () => {
    const tl = parseTimeline(timelineInstructions(loadFixture('TweetDetail-visibility-limited-quote.json'), 'TweetDetail'));
    const item = tl.items[0];
    const raw = item.kind === 'tweet' ? item.result : null;
    expect(raw?.quoted_status_result?.result?.__typename).toBe('TweetWithVisibilityResults');
    const p = mapPost(raw);
    expect(p?.id).toBe('1902059299591090335');
    expect(p?.quotedPost?.id).toBe('1900793157786255768');
    expect(mapPost(raw?.quoted_status_result?.result)?.id).toBe('1900793157786255768');
  });

  it('treats TweetTombstone, TweetUnavailable and empty slots as posts that cannot be returned', () => {
    const tombstone = { __typename: 'TweetTombstone', tombstone: { __typename: 'TextTombstone', text: { text: 'This Post was deleted by the Post author.', entities: [] } } };
    expect(mapPost(tombstone)).toBeNull();
    expect(unavailableTweetReason(tombstone)).toBe('This Post was deleted by the Post author.');
    expect(mapPost({ __typename: 'TweetUnavailable', reason: 'Suspended' })).toBeNull();
    expect(unavailableTweetReason({ __typename: 'TweetUnavailable', reason: 'Suspended' })).toBe('Suspended');
    expect(mapPost({})).toBeNull();
    expect(mapPost(undefined)).toBeNull();
  });

  it('recognises UserUnavailable with reasons NoReason (Retweeters) and Suspended', () => {
    const tl = parseTimeline(timelineInstructions(loadFixture('Retweeters.json'), 'Retweeters'));
    const reasons = tl.items.map((i) => (i.kind === 'user' ? unavailableUserReason(i.result) : 'not a user')).filter((r) => r !== null);
    expect(reasons).toEqual(['NoReason']);
    expect(unavailableUserReason(loadFixture('UserByScreenName-suspended.json').data.user.result)).toBe('Suspended');
  });
});

describe('2.4 microblog post', () => {
  it('keeps ids as strings beyond 2^53', () => {
    const p = post('ListLatestTweetsTimeline.json', '2085472697924890822');
    expect(p.id).toBe('2085472697924890822');
    expect(BigInt(p.id) > BigInt(Number.MAX_SAFE_INTEGER)).toBe(true);
  });

  it('reads a long post from note_tweet, not the truncated full_text', () => {
    const raw = findTweet(loadFixture('TweetDetail-note-tweet.json'), '1682072224013099008');
    expect(raw.legacy.display_text_range).toEqual([0, 275]);
    const p = mapPost(raw)!;
    expect(p.text).toBe(raw.note_tweet.note_tweet_results.result.text.replaceAll('https://t.co/5ih4hl5Y78', 'http://fn.gg/support').replaceAll('https://t.co/odE9qJiOg3', 'http://fn.gg/accounts').replace(/https:\/\/t\.co\/\w+/g, (u: string) => p.entities.urls[raw.note_tweet.note_tweet_results.result.entity_set.urls.findIndex((x: { url: string }) => x.url === u)]));
    expect(Array.from(p.text).length).toBeGreaterThan(275);
    expect(p.entities.hashtags).toEqual(['Fortnite']);
  });

  it('HTML-unescapes full_text but leaves note-tweet text as sent', () => {
    const escaped = post('UserTweets.json', '2077990228690940158');
    expect(escaped.text).toBe('X API to source leads & expand your network');
    const note = post('UserTweets.json', '2077972969603621173');
    expect(note.text).toContain('list:<LIST_ID> (<GAME_TERMS>) -is:retweet');
  });

  it('converts code-point entity indices: links after astral characters are expanded in place', () => {
    const p = post('UserTweetsAndReplies.json', '2083289084567724316');
    expect(p.text).toBe(
      'Overhauled the 𝕏 Developer Console with a fresh coat of paint. More improvements to come as we continue investing in our DX! http://console.x.com',
    );
    const reply = post('TweetDetail-note-tweet.json', '1697295406260953510');
    expect(reply.text.endsWith('http://fn.gg/VerifyFiles. 🔧')).toBe(true);
  });

  it('cuts the trailing media link at display_text_range (counted in code points)', () => {
    const raw = findTweet(loadFixture('TweetDetail-quote-and-retweet.json'), '1658407192859492355');
    expect(raw.legacy.full_text).toMatch(/https:\/\/t\.co\/apswi6Wwiw$/);
    const p = mapPost(raw)!;
    expect(p.text.endsWith('#Sisu')).toBe(true);
    expect(p.media.map((m) => m.type)).toEqual(['photo']);
  });

  it('builds the url, parses the classic date and treats an absent in_reply_to as null', () => {
    const p = post('TweetDetail-quote-and-retweet.json', '1658407192859492355');
    expect(p.url).toBe('https://x.com/SisuMisu3/status/1658407192859492355');
    expect(p.createdAt).toBe('2023-05-16T09:41:01.000Z');
    expect(p.inReplyToId).toBeNull();
    const reply = post('TweetDetail-note-tweet.json', '1697284191950348589');
    expect(reply.inReplyToId).toBe('1682072224013099008');
    expect(reply.conversationId).toBe('1682072224013099008');
  });

  it('passes special language codes (zxx, qme) through', () => {
    expect(post('TweetDetail-article.json', '2075503860689281453').lang).toBe('zxx');
    expect(post('TweetDetail-conversation.json', '1649204618902097920').lang).toBe('qme');
  });

  it('reads views.count as a string and gives null when the state has no count', () => {
    const p = post('TweetDetail-quote-and-retweet.json', '1658409412799737856');
    expect(p.viewCount).toBeNull();
    expect(p.repostedPost?.viewCount).toBe(1110);
  });

  it('reads repostedPost from legacy.retweeted_status_result; the outer counters are the reposter copy', () => {
    const p = post('TweetDetail-quote-and-retweet.json', '1658409412799737856');
    expect(p.text.startsWith('RT @SisuMisu3: ')).toBe(true);
    expect(p.likeCount).toBe(0);
    expect(p.repostedPost?.id).toBe('1658407192859492355');
    expect(p.repostedPost?.likeCount).toBe(60);
    expect(p.repostedPost).not.toHaveProperty('repostedPost');
  });

  it('reads quotedPost at the top level of the tweet, one level deep only', () => {
    const p = post('TweetDetail-quote-and-retweet.json', '1677037919880507392');
    expect(p.quotedPost?.id).toBe('1677035434214412289');
    expect(p.quotedPost).not.toHaveProperty('quotedPost');
  });

  it('on a repost of a quote the quote lives only on the inner tweet (and is cut at one level)', () => {
    const raw = findTweet(loadFixture('UserTweets.json'), '2077992748905590821');
    expect(raw.quoted_status_result).toBeUndefined();
    const inner = raw.legacy.retweeted_status_result.result;
    const p = mapPost(raw)!;
    expect(p.quotedPost).toBeNull();
    expect(p.repostedPost?.id).toBe(inner.rest_id);
  });

  it('omitted entity keys (2026) give empty arrays', () => {
    const raw = findTweet(loadFixture('TweetDetail-article.json'), '2075503860689281453');
    expect(Object.keys(raw.legacy.entities)).toEqual(['urls']);
    const p = mapPost(raw)!;
    expect(p.entities).toEqual({ hashtags: [], mentions: [], urls: ['http://x.com/i/article/2075490569867161600'] });
  });
});

describe('2.5 media', () => {
  it('takes the highest-bitrate MP4 whatever the variant order, and the thumbnail as preview', () => {
    const p = post('TweetDetail-video.json', '1671700833363447808');
    const raw = findTweet(loadFixture('TweetDetail-video.json'), '1671700833363447808');
    const variants = raw.legacy.extended_entities.media[0].video_info.variants;
    const best = variants.find((v: { bitrate?: number }) => v.bitrate === 10368000).url;
    expect(p.media[0]).toEqual({ id: raw.legacy.extended_entities.media[0].id_str, type: 'video', url: best, previewImageUrl: raw.legacy.extended_entities.media[0].media_url_https });
  });

  it('takes the one bitrate-0 MP4 of a GIF, with no preview', () => {
    const p = post('TweetDetail-conversation.json', '1649263296434806785');
    expect(p.media).toEqual([{ id: '1649263289954705410', type: 'animated_gif', url: 'https://video.twimg.com/tweet_video/FuNcOVrXoAIGi0f.mp4', previewImageUrl: null }]);
  });

  it('a photo url is media_url_https and has no preview', () => {
    const p = post('TweetDetail-quote-and-retweet.json', '1658407192859492355');
    expect(p.media).toEqual([{ id: '1658407190594453505', type: 'photo', url: 'https://pbs.twimg.com/media/FwPYjaBWAAETpRI.jpg', previewImageUrl: null }]);
  });
});

describe('2.6 the three user shapes', () => {
  it('2026 shape: no legacy at all', () => {
    const u = loadFixture('UserByScreenName.json').data.user.result;
    expect(u.legacy).toBeUndefined();
    const p = mapProfile(u);
    expect(p).toMatchObject({ id: '2244994945', username: 'XDevelopers', name: 'Developers', followersCount: 695695, followingCount: 762, statusesCount: 4319, likeCount: 2642, location: '127.0.0.1', url: 'https://x.com/XDevelopers', pinnedPostIds: ['2019881223666233717'], protected: false, verified: true, createdAt: '2013-12-14T04:35:55.000Z', profileBannerUrl: 'https://pbs.twimg.com/profile_banners/2244994945/1690213128' });
    expect(p.id).not.toBe(u.id);
  });

  it('legacy shape: everything under legacy, protected absent means false, favourites_count spelling', () => {
    const p = mapProfile(loadFixture('UserByScreenName-2025-legacy.json').data.user.result);
    expect(p).toMatchObject({ id: '2244994945', username: 'XDevelopers', followersCount: 700242, followingCount: 746, statusesCount: 4079, likeCount: 2167, protected: false, pinnedPostIds: ['1851463451929186504'] });
    const old = mapProfile(loadFixture('UsersByRestIds-element-excerpt.json').result);
    expect(old).toMatchObject({ username: 'karpathy', verified: true, followersCount: 701931 });
  });

  it('transitional shape: core and avatar new, counters still in legacy', () => {
    const raw = findTweet(loadFixture('TweetResultsByRestIds-community-sensitive.json'), '1964084223871971826');
    const u = raw.core.user_results.result;
    expect(u.core.screen_name).toBe('vo1twasdowned');
    expect(u.legacy.followers_count).toBe(408);
    const p = mapProfile(u);
    expect(p).toMatchObject({ username: 'vo1twasdowned', followersCount: 408, profileImageUrl: u.avatar.image_url });
  });

  it("carries the account's website (the expanded link; url stays the profile page) in all three shapes", () => {
    expect(mapProfile(loadFixture('UserByScreenName.json').data.user.result)).toMatchObject({ url: 'https://x.com/XDevelopers', website: 'https://docs.x.com/' });
    expect(mapProfile(loadFixture('UserByScreenName-2025-legacy.json').data.user.result).website).toBe('https://docs.x.com/');
    const members = parseTimeline(timelineInstructions(loadFixture('ListMembers.json'), 'ListMembers'));
    const sites = members.items.flatMap((i) => (i.kind === 'user' && isAvailableUser(i.result) ? [mapProfile(i.result).website] : []));
    expect(sites.filter((w) => w !== null)).toHaveLength(19);
    expect(sites.every((w) => w === null || !w.startsWith('https://t.co/'))).toBe(true);
  });

  it('replaces the short links of a bio by their targets (after emoji, counted in code points)', () => {
    const members = parseTimeline(timelineInstructions(loadFixture('ListMembers.json'), 'ListMembers'));
    const kyiv = members.items.flatMap((i) => (i.kind === 'user' && isAvailableUser(i.result) ? [mapProfile(i.result)] : [])).find((p) => p.username === 'KyivIndependent');
    expect(kyiv?.description).toBe('Independent English-language journalism in Ukraine. \n\nBecome a member: http://kyivindependent.com/membership');
    const ashevat = mapProfile(findTweet(loadFixture('TweetDetail-conversation.json'), '1649263296434806785').core.user_results.result);
    expect(ashevat.description).toBe('Early Stage Investor. ⏳ CPO @reshuffleHQ (acquired by @Twitter), VP product Twitch, Slack & Google, Author📚 @OReillyMedia http://amazon.com/author/amirshevat');
  });

  it('reads privacy.protected of protected followers', () => {
    const tl = parseTimeline(timelineInstructions(loadFixture('Followers.json'), 'Followers'));
    const flags = tl.items.flatMap((i) => (i.kind === 'user' && isAvailableUser(i.result) ? [mapProfile(i.result).protected] : []));
    expect(flags.some((f) => f)).toBe(true);
    expect(flags.some((f) => !f)).toBe(true);
  });
});

describe('2.7 Article', () => {
  const body = loadFixture('TweetDetail-article.json');
  const tweet = findTweet(body, '2075503860689281453');
  const article = ArticleShape.parse(mapArticle(tweet.article.article_results.result, tweet, true));

  it('maps ids, url, epoch-second timestamps and the cover', () => {
    expect(article.id).toBe('2075490569867161600');
    expect(article.postId).toBe('2075503860689281453');
    expect(article.url).toBe('https://x.com/i/article/2075490569867161600');
    expect(article.postUrl).toBe('https://x.com/bookunt/status/2075503860689281453');
    expect(article.publishedAt).toBe(new Date(1783673655 * 1000).toISOString());
    expect(article.updatedAt).toBe(new Date(1783673896 * 1000).toISOString());
    expect(article.coverImage).toEqual({ id: '2075504836108570624', type: 'photo', url: 'https://pbs.twimg.com/media/HM2spuXbUAAZTCZ.jpg', width: 1024, height: 410 });
  });

  it('reads entityMap as an array of {key, value}: DIVIDER and MARKDOWN entities on atomic blocks', () => {
    const atomic = article.blocks!.filter((b) => b.type === 'atomic');
    expect(atomic[0].entities[0].type).toBe('DIVIDER');
    const md = article.blocks!.find((b) => b.entities.some((e) => e.type === 'MARKDOWN'))!;
    expect(md.entities[0].markdown).toBe('```bash\ncurl -fsSL https://hermes-agent.nousresearch.com/install.sh | bash\n\n```');
    expect(article.markdown).toContain('```bash\ncurl -fsSL https://hermes-agent.nousresearch.com/install.sh | bash');
  });

  it('converts code-point style and entity offsets to UTF-16 (a block starting with an emoji)', () => {
    const block = article.blocks!.find((b) => b.text === '🌐 Web:')!;
    // Upstream: Bold at code point 2, length 3; the globe is 2 UTF-16 units.
    expect(block.styles).toEqual([{ offset: 3, length: 3, style: 'Bold' }]);
    expect(block.text.slice(3, 6)).toBe('Web');
    expect(block.entities[0]).toMatchObject({ type: 'TWEMOJI', offset: 0, length: 2 });
    expect(article.markdown).toContain('🌐 **Web**:');
  });

  it('exposes block.data.urls as LINK entities and renders lists', () => {
    const block = article.blocks!.find((b) => b.text.includes('nousresearch.com/docs/'))!;
    const link = block.entities.find((e) => e.type === 'LINK')!;
    expect(block.text.slice(link.offset, link.offset + link.length)).toBe('https://hermes-agent.nousresearch.com/docs/');
    expect(article.markdown).toContain('[https://hermes-agent.nousresearch.com/docs/](https://hermes-agent.nousresearch.com/docs/)');
    expect(article.markdown).toContain('\n- **Search**: ');
    expect(article.text).toContain('\n• Search: جستجو');
  });

  it('in lists only the preview is sent: no content_state, text/markdown/blocks null', () => {
    const raw = findTweet(loadFixture('UserTweets.json'), '2079814622639469025');
    const inner = raw.legacy.retweeted_status_result?.result ?? raw;
    const a = mapPost(raw)!.repostedPost?.article ?? mapPost(raw)!.article;
    expect(inner.article.article_results.result.content_state).toBeUndefined();
    expect(a).toMatchObject({ text: null, markdown: null, blocks: null, media: [] });
    expect(a?.previewText).toBeTruthy();
  });
});

describe('2.8 edits', () => {
  it('reads edit_control of an edited version through edit_control_initial', () => {
    const raw = findTweet(loadFixture('ListLatestTweetsTimeline.json'), '2085449206001504449');
    expect(raw.edit_control.initial_tweet_id).toBe('2085448532773716276');
    expect(editVersionIds(raw)).toEqual(['2085448532773716276', '2085449206001504449']);
    expect(editControlOf(raw)?.edit_tweet_ids).toHaveLength(2);
  });

  it('an original carries its own edit_tweet_ids (strings for counts and ms)', () => {
    const raw = findTweet(loadFixture('TweetDetail-quote-and-retweet.json'), '1658409412799737856');
    expect(editVersionIds(raw)).toEqual(['1658409412799737856']);
    expect(editControlOf(raw)?.edits_remaining).toBe('5');
  });
});

describe('2.9 about this account', () => {
  it('converts string counts and string epoch milliseconds', () => {
    const about = mapAboutDetails(loadFixture('AboutAccountQuery.json').data.user_result_by_screen_name.result);
    expect(about).toEqual({
      id: '2244994945',
      username: 'XDevelopers',
      name: 'Developers',
      createdAt: '2013-12-14T04:35:55.000Z',
      profileImageUrl: 'https://pbs.twimg.com/profile_images/1683501992314798080/xl1POYLw_normal.jpg',
      profileImageShape: 'Square',
      verified: true,
      protected: false,
      aboutProfile: {
        accountBasedIn: 'United States',
        locationAccurate: true,
        createdCountryAccurate: true,
        source: 'Web',
        usernameChanges: { count: 1, lastChangedAt: new Date(1690335192280).toISOString() },
      },
      verificationInfo: { isIdentityVerified: false, verifiedSince: new Date(1395425700472).toISOString() },
    });
  });
});

describe('2.11 other quirks', () => {
  it('an affiliate badge embedding UserUnavailable users does not break the author', () => {
    const raw = findTweet(loadFixture('TweetDetail-article.json'), '2075641403774787794');
    expect(mapPostBase(raw)?.author.username).toBe('m4tinbeigi');
  });
});
