import { stalled, type Truncation } from '../shapes/paging-shapes.ts';
import { UpstreamHttpClient } from '../upstream/http-client.ts';
import { UpstreamError } from '../upstream/upstream-error.ts';
import type {
  AboutDetails,
  Article,
  MicroblogList,
  MicroblogPost,
  MicroblogProfile,
  MicroblogSpace,
} from '../shapes/microblog-shapes.ts';
import { mapArticle } from './microblog-article-mapper.ts';
import { repliesOf, type Conversation } from './microblog-conversation.ts';
import { asUpstreamError, checkResponse, tweetUnavailableError, userUnavailableError } from './microblog-errors.ts';
import { isPrivateList, mapList } from './microblog-list-mapper.ts';
import {
  DEFAULT_FEATURES,
  DEFAULT_QUERY_IDS,
  FIELD_TOGGLES,
  type MicroblogOperation,
  type ReplyRanking,
  type SearchProduct,
} from './microblog-operations.ts';
import { mapPost, unavailableTweetReason, unwrapTweet } from './microblog-post-mapper.ts';
import { mapSpace } from './microblog-space-mapper.ts';
import { isTweetItem, parseTimeline, timelineInstructions, type ParsedTimeline, type UserItem } from './microblog-timeline-parser.ts';
import { isAvailableUser, mapAboutDetails, mapProfile, unavailableUserReason } from './microblog-user-mapper.ts';
import type { WireBody, WireTweetResult, WireUser, WireUserResult } from './wire.ts';

export interface MicroblogClientOptions {
  baseUrl: string;
  /** Sent as `Authorization: Bearer …` (the web client's public bearer, or a service credential). */
  bearerToken?: string;
  /** Extra headers such as `x-csrf-token` and cookies for an authenticated session. */
  headers?: Record<string, string>;
  queryIds?: Partial<Record<MicroblogOperation, string>>;
  timeoutMs?: number;
  maxRetries?: number;
  connections?: number;
  retryBaseMs?: number;
  retryCapMs?: number;
}

export interface Page<T> {
  items: T[];
  /** Upstream `Bottom` cursor; null when the platform signals the end. */
  next: string | null;
  /** Set when the platform sent back the cursor it was given (it cannot be walked further). */
  truncated?: Truncation;
  /** Accounts the platform listed on this page but that cannot be returned (suspended, deactivated): left out. */
  leftOut?: number;
}

/** A post read by id: the platform's result (edit control, why it is unavailable) and the post it maps to, or null. */
export interface PostRead {
  result: WireTweetResult | null;
  post: MicroblogPost | null;
}

export interface PageRequest {
  cursor?: string;
  count?: number;
}

export type UserTimelineKind = 'posts' | 'replies' | 'media' | 'highlights';
export type UserListKind = 'followers' | 'following' | 'affiliates';

const TIMELINE_OPERATIONS: Record<UserTimelineKind, MicroblogOperation> = {
  posts: 'UserTweets',
  replies: 'UserTweetsAndReplies',
  media: 'UserMedia',
  highlights: 'UserHighlightsTweets',
};

const USER_LIST_OPERATIONS: Record<UserListKind, MicroblogOperation> = {
  followers: 'Followers',
  following: 'Following',
  affiliates: 'UserBusinessProfileTeamTimeline',
};

/**
 * A page whose bottom cursor leads nowhere new ends the walk: the platform keeps sending a cursor on the last page,
 * whose page is empty. A page of items that comes back with the very cursor it was asked with has stalled: asking
 * for the next page would only repeat it.
 */
function pageOf<T>(items: T[], timeline: ParsedTimeline, cursorSent: string | undefined): Page<T> {
  const next = timeline.bottom;
  const empty = timeline.items.length === 0;
  if (next && next === cursorSent && !empty) return { items, next: null, truncated: stalled() };
  return { items, next: next && next !== cursorSent && !empty ? next : null };
}

export type MicroblogClient = ReturnType<typeof createMicroblogClient>;

export function createMicroblogClient(opts: MicroblogClientOptions) {
  const http = new UpstreamHttpClient({
    baseUrl: opts.baseUrl,
    platform: 'microblog',
    timeoutMs: opts.timeoutMs,
    maxRetries: opts.maxRetries,
    connections: opts.connections,
    retryBaseMs: opts.retryBaseMs,
    retryCapMs: opts.retryCapMs,
    headers: {
      ...(opts.bearerToken ? { authorization: `Bearer ${opts.bearerToken}` } : {}),
      ...opts.headers,
    },
  });
  const queryIds = { ...DEFAULT_QUERY_IDS, ...opts.queryIds };

  async function call(operation: MicroblogOperation, variables: Record<string, unknown>): Promise<WireBody> {
    const toggles = FIELD_TOGGLES[operation];
    const res = await http.getJson(`/i/api/graphql/${queryIds[operation]}/${operation}`, {
      variables: JSON.stringify(variables),
      features: JSON.stringify(DEFAULT_FEATURES),
      fieldToggles: toggles ? JSON.stringify(toggles) : undefined,
    });
    return checkResponse(res, operation);
  }

  /** Runs a call and its reading; anything unexpected while reading becomes `unavailable`. */
  async function guarded<T>(operation: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      throw asUpstreamError(error, operation);
    }
  }

  /** A page of accounts; those the platform lists as unavailable are left out, and counted. */
  function profilePageOf(timeline: ParsedTimeline, cursorSent: string | undefined): Page<MicroblogProfile> {
    const listed = timeline.items.filter((it): it is UserItem => it.kind === 'user');
    const profiles = listed.flatMap((it) => (isAvailableUser(it.result) ? [mapProfile(it.result)] : []));
    return { ...pageOf(profiles, timeline, cursorSent), leftOut: listed.length - profiles.length };
  }

  function postsOf(timeline: ParsedTimeline): MicroblogPost[] {
    return timeline.items.flatMap((it) => {
      if (it.kind !== 'tweet' || it.promoted) return [];
      const post = mapPost(it.result);
      return post ? [post] : [];
    });
  }

  function userResultOrThrow(result: WireUserResult | undefined, who: string): WireUser {
    if (!result) throw new UpstreamError('not_found', 'microblog', `account ${who} not found`);
    if (!isAvailableUser(result)) throw userUnavailableError(String(unavailableUserReason(result)), who);
    return result;
  }

  async function tweetResultsByIds(ids: string[]): Promise<Map<string, WireTweetResult | null>> {
    const out = new Map<string, WireTweetResult | null>(ids.map((id) => [id, null]));
    if (ids.length === 0) return out;
    const body = await call('TweetResultsByRestIds', {
      tweetIds: ids,
      includePromotedContent: false,
      withBirdwatchNotes: false,
      withVoice: true,
      withCommunity: true,
    });
    const slots = body?.data?.tweetResult ?? [];
    slots.forEach((slot, index) => {
      const result = slot?.result;
      const tweet = unwrapTweet(result);
      // One slot per requested id, in order; an id that cannot be returned may come back as an empty slot.
      const id = tweet ? String(tweet.rest_id) : ids[index];
      if (id !== undefined && out.has(id)) out.set(id, result ?? null);
    });
    return out;
  }

  async function tweetDetail(postId: string, cursor?: string, rankingMode: ReplyRanking = 'Relevance') {
    const body = await call('TweetDetail', {
      focalTweetId: postId,
      cursor,
      referrer: 'tweet',
      with_rux_injections: false,
      rankingMode,
      includePromotedContent: true,
      withCommunity: true,
      withQuickPromoteEligibilityTweetFields: true,
      withBirdwatchNotes: true,
      withVoice: true,
    });
    const timeline = parseTimeline(timelineInstructions(body, 'TweetDetail'));
    const focalIndex = timeline.items.findIndex((it) => it.kind === 'tweet' && it.entryId === `tweet-${postId}`);
    const focal = focalIndex >= 0 && isTweetItem(timeline.items[focalIndex]) ? timeline.items[focalIndex] : undefined;
    if (!cursor) {
      if (!focal) throw new UpstreamError('not_found', 'microblog', `post ${postId} not found`);
      const reason = unavailableTweetReason(focal.result);
      if (reason !== null) throw tweetUnavailableError(reason, postId);
    }
    return { timeline, focalIndex, focalResult: focal?.result ?? null };
  }

  async function searchTimeline(rawQuery: string, product: SearchProduct, page: PageRequest): Promise<ParsedTimeline> {
    const body = await call('SearchTimeline', {
      rawQuery,
      count: page.count ?? 20,
      cursor: page.cursor,
      querySource: 'typed_query',
      product,
    });
    return parseTimeline(timelineInstructions(body, 'SearchTimeline'));
  }

  const client = {
    http,
    stats: http.stats,
    close: () => http.close(),

    /** Up to 100 posts in one round trip; ids that cannot be returned have a null post. */
    getPostsByIds: (ids: string[]): Promise<Map<string, PostRead>> =>
      guarded('TweetResultsByRestIds', async () => {
        const raw = await tweetResultsByIds(ids);
        return new Map([...raw].map(([id, result]) => [id, { result, post: result ? mapPost(result) : null }]));
      }),

    /** Up to 100 accounts in one round trip; unavailable accounts (suspended, deactivated, …) map to null. */
    getUsersByIds: (ids: string[]): Promise<Map<string, MicroblogProfile | null>> =>
      guarded('UsersByRestIds', async () => {
        const out = new Map<string, MicroblogProfile | null>(ids.map((id) => [id, null]));
        if (ids.length === 0) return out;
        const body = await call('UsersByRestIds', { userIds: ids });
        for (const slot of body?.data?.users ?? []) {
          const result = slot?.result;
          if (!isAvailableUser(result)) continue;
          const id = String(result.rest_id);
          if (out.has(id)) out.set(id, mapProfile(result));
        }
        return out;
      }),

    getUserByUsername: (username: string): Promise<MicroblogProfile> =>
      guarded('UserByScreenName', async () => {
        const body = await call('UserByScreenName', { screen_name: username, withSafetyModeUserFields: true });
        return mapProfile(userResultOrThrow(body?.data?.user?.result, `@${username}`));
      }),

    getUserById: (userId: string): Promise<MicroblogProfile> =>
      guarded('UserByRestId', async () => {
        const body = await call('UserByRestId', { userId, withSafetyModeUserFields: true });
        return mapProfile(userResultOrThrow(body?.data?.user?.result, userId));
      }),

    getAbout: (username: string): Promise<AboutDetails> =>
      guarded('AboutAccountQuery', async () => {
        const body = await call('AboutAccountQuery', { screenName: username });
        return mapAboutDetails(userResultOrThrow(body?.data?.user_result_by_screen_name?.result, `@${username}`));
      }),

    /** A user's posts, posts and replies, media or highlights. `pinned` is the profile's pinned post when sent. */
    getUserTimeline: (userId: string, kind: UserTimelineKind, page: PageRequest = {}): Promise<Page<MicroblogPost> & { pinned: MicroblogPost | null }> =>
      guarded(TIMELINE_OPERATIONS[kind], async () => {
        const operation = TIMELINE_OPERATIONS[kind];
        const body = await call(operation, {
          userId,
          count: page.count ?? 20,
          cursor: page.cursor,
          includePromotedContent: false,
          withQuickPromoteEligibilityTweetFields: false,
          withVoice: true,
          withV2Timeline: true,
        });
        const userResult = body?.data?.user?.result;
        if (!userResult) throw new UpstreamError('not_found', 'microblog', `account ${userId} not found`);
        if (userResult.__typename === 'UserUnavailable') throw userUnavailableError(String(userResult.reason), userId);
        const timeline = parseTimeline(timelineInstructions(body, operation));
        const pinnedItem = timeline.items.filter(isTweetItem).find((it) => it.pinned);
        // Promoted entries and who-to-follow modules are not the user's timeline.
        const entries = { ...timeline, items: timeline.items.filter((it) => it.kind === 'tweet' && !it.pinned && !it.promoted) };
        // A reply's profile-conversation module shows the posts it answers, other accounts' among them: context,
        // not this account's timeline. The Posts tab also shows self-replies that continue a thread; `posts`
        // promises no replies, so those come with `replies` only.
        const own = postsOf(entries).filter((post) => post.author.id === userId && (kind !== 'posts' || post.inReplyToId === null));
        return { ...pageOf(own, timeline, page.cursor), pinned: pinnedItem ? mapPost(pinnedItem.result) : null };
      }),

    /** Followers, following or a verified organisation's affiliates. */
    getUserList: (userId: string, kind: UserListKind, page: PageRequest = {}): Promise<Page<MicroblogProfile>> =>
      guarded(USER_LIST_OPERATIONS[kind], async () => {
        const operation = USER_LIST_OPERATIONS[kind];
        const variables: Record<string, unknown> = { userId, count: page.count ?? 20, cursor: page.cursor, includePromotedContent: false };
        if (kind === 'affiliates') variables.teamName = 'NotAssigned';
        const body = await call(operation, variables);
        const userResult = body?.data?.user?.result;
        if (!userResult) throw new UpstreamError('not_found', 'microblog', `account ${userId} not found`);
        if (userResult.__typename === 'UserUnavailable') throw userUnavailableError(String(userResult.reason), userId);
        const timeline = parseTimeline(timelineInstructions(body, operation));
        return profilePageOf(timeline, page.cursor);
      }),

    /**
     * The conversation page of a post (TweetDetail): ancestors before the focal entry, then reply modules.
     * `rankingMode` is the platform's own reply ranking.
     */
    getConversation: (postId: string, opts: { cursor?: string; rankingMode?: ReplyRanking } = {}): Promise<Conversation> =>
      guarded('TweetDetail', async () => {
        const { timeline, focalIndex, focalResult } = await tweetDetail(postId, opts.cursor, opts.rankingMode);
        const entries = timeline.items.flatMap((it, index) => {
          if (it.kind !== 'tweet') return [];
          const post = mapPost(it.result);
          return post ? [{ post, moduleId: it.moduleId, position: index < focalIndex ? 'above' : index === focalIndex ? 'focal' : 'below', promoted: it.promoted }] : [];
        });
        const focal = focalResult ? mapPost(focalResult) : null;
        return {
          focal,
          entries: entries as Conversation['entries'],
          next: pageOf([], timeline, opts.cursor).next,
        };
      }),

    /** Replies under a post (replies to replies included); the post, posts above it and promoted posts left out. */
    getReplies: (postId: string, opts: { cursor?: string; rankingMode?: ReplyRanking } = {}): Promise<Page<MicroblogPost>> =>
      guarded('TweetDetail', async () => repliesOf(postId, await client.getConversation(postId, opts))),

    /** Posts quoting a post: the web client's quotes view is a search for `quoted_tweet_id:{id}`. */
    getQuotes: (postId: string, page: PageRequest = {}): Promise<Page<MicroblogPost>> =>
      guarded('SearchTimeline', async () => {
        const timeline = await searchTimeline(`quoted_tweet_id:${postId}`, 'Latest', page);
        return pageOf(postsOf(timeline), timeline, page.cursor);
      }),

    getReposters: (postId: string, page: PageRequest = {}): Promise<Page<MicroblogProfile>> =>
      guarded('Retweeters', async () => {
        const body = await call('Retweeters', { tweetId: postId, count: page.count ?? 20, cursor: page.cursor, includePromotedContent: false });
        const timeline = parseTimeline(timelineInstructions(body, 'Retweeters'));
        return profilePageOf(timeline, page.cursor);
      }),

    /** Post search with the platform's query operators (`from:`, `since:`, `min_faves:` …); product Latest or Top. */
    searchPosts: (rawQuery: string, product: 'Latest' | 'Top' | 'Media', page: PageRequest = {}): Promise<Page<MicroblogPost>> =>
      guarded('SearchTimeline', async () => {
        const timeline = await searchTimeline(rawQuery, product, page);
        return pageOf(postsOf(timeline), timeline, page.cursor);
      }),

    /** People search, ranked by the platform. */
    searchUsers: (query: string, page: PageRequest = {}): Promise<Page<MicroblogProfile>> =>
      guarded('SearchTimeline', async () => {
        const timeline = await searchTimeline(query, 'People', page);
        return profilePageOf(timeline, page.cursor);
      }),

    getList: (listId: string): Promise<MicroblogList> =>
      guarded('ListByRestId', async () => {
        const body = await call('ListByRestId', { listId });
        const list = body?.data?.list;
        if (!list || (!list.id_str && !list.rest_id)) throw new UpstreamError('not_found', 'microblog', `list ${listId} not found`);
        if (isPrivateList(list)) throw new UpstreamError('not_public', 'microblog', `list ${listId} is private`, { reason: 'private' });
        return mapList(list);
      }),

    getListMembers: (listId: string, page: PageRequest = {}): Promise<Page<MicroblogProfile>> =>
      guarded('ListMembers', async () => {
        const body = await call('ListMembers', { listId, count: page.count ?? 20, cursor: page.cursor, withSafetyModeUserFields: true });
        if (!body?.data?.list) throw new UpstreamError('not_found', 'microblog', `list ${listId} not found`);
        const timeline = parseTimeline(timelineInstructions(body, 'ListMembers'));
        return profilePageOf(timeline, page.cursor);
      }),

    getListPosts: (listId: string, page: PageRequest = {}): Promise<Page<MicroblogPost>> =>
      guarded('ListLatestTweetsTimeline', async () => {
        const body = await call('ListLatestTweetsTimeline', { listId, count: page.count ?? 20, cursor: page.cursor });
        if (!body?.data?.list) throw new UpstreamError('not_found', 'microblog', `list ${listId} not found`);
        const timeline = parseTimeline(timelineInstructions(body, 'ListLatestTweetsTimeline'));
        return pageOf(postsOf(timeline), timeline, page.cursor);
      }),

    getSpace: (spaceId: string): Promise<MicroblogSpace> =>
      guarded('AudioSpaceById', async () => {
        const body = await call('AudioSpaceById', {
          id: spaceId,
          isMetatagsQuery: false,
          withReplays: true,
          withListeners: true,
        });
        const space = body?.data?.audioSpace;
        if (!space?.metadata?.rest_id) throw new UpstreamError('not_found', 'microblog', `space ${spaceId} not found`);
        return mapSpace(space);
      }),

    /** The full Article a post carries, or null when the post carries none. */
    getArticle: (postId: string): Promise<Article | null> =>
      guarded('TweetDetail', async () => {
        const { focalResult } = await tweetDetail(postId);
        const tweet = unwrapTweet(focalResult);
        const article = tweet?.article?.article_results?.result;
        return tweet && article?.rest_id ? mapArticle(article, tweet, true) : null;
      }),
  };
  return client;
}
