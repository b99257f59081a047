import type { GraphQLResolveInfo } from 'graphql';
import type { PostSearchParams } from '../../adapters/forum/forum-client.ts';
import type { ListingPage } from '../../adapters/forum/listing-mapper.ts';
import type { ForumPost } from '../../adapters/shapes/forum-shapes.ts';
import type { RequestContext } from '../../core/request-context.ts';
import type { Page } from '../../core/page.ts';
import { depthCapped, stalled } from '../../adapters/shapes/paging-shapes.ts';
import { FORUM_SEARCH_DEPTH } from '../../adapters/forum/forum-client.ts';
import { cursorPage } from '../paging.ts';
import { forumClient } from './forum-context.ts';
import { omitNsfw, platformSearchQuery } from './forum-search-query.ts';

type ForumPostPage = Page<ForumPost> & { omittedNsfw: number | null };

export interface PostSearchArgs {
  query: string;
  author?: string;
  postType: 'any' | 'self' | 'link';
  sort: 'relevance' | 'new' | 'top' | 'comments' | 'hot';
  time: 'hour' | 'day' | 'week' | 'month' | 'year' | 'all';
  includeNsfw: boolean;
  limit: number;
  cursor?: string;
}

/** Site-wide search: `/search`, with the community filter as the platform's `subreddit:` operator. */
export function searchForumPosts(args: PostSearchArgs & { subforum?: string }, ctx: RequestContext, info: GraphQLResolveInfo): Promise<ForumPostPage> {
  return runPostSearch(args, ctx, info, (params) => forumClient(ctx).searchPosts(params), args.subforum?.replace(/^r\//, ''));
}

/** In-community search: `/r/{name}/search?restrict_sr=1`; not-found and not-public come from the platform. */
export function searchSubforumPosts(args: PostSearchArgs & { name: string }, ctx: RequestContext, info: GraphQLResolveInfo): Promise<ForumPostPage> {
  return runPostSearch(args, ctx, info, (params) => forumClient(ctx).searchSubforumPosts(args.name, params));
}

async function runPostSearch(
  args: PostSearchArgs,
  ctx: RequestContext,
  info: GraphQLResolveInfo,
  search: (params: PostSearchParams) => Promise<ListingPage<ForumPost>>,
  subforum?: string,
): Promise<ForumPostPage> {
  let omitted = 0;
  // The platform's `after`, and how many results the walk has been given so far (its search has a depth).
  const page = await cursorPage<ForumPost, { a: string; n: number }>(ctx, info, args, async (state) => {
    const after = state?.a;
    const upstream = await search({
      q: platformSearchQuery({ query: args.query, author: args.author?.replace(/^u\//, ''), subforum, postType: args.postType }),
      sort: args.sort,
      t: args.time,
      limit: args.limit,
      after,
      // Always asked with NSFW included: the service removes them itself so the omitted count is exact.
      includeOver18: true,
    });
    const kept = omitNsfw(upstream.items, args.includeNsfw);
    omitted = kept.omitted;
    const seen = (state?.n ?? 0) + upstream.items.length;
    if (upstream.after && upstream.after === after) return { items: kept.items, next: null, truncated: stalled(seen) };
    if (!upstream.after && seen >= FORUM_SEARCH_DEPTH) return { items: kept.items, next: null, truncated: depthCapped(seen, FORUM_SEARCH_DEPTH) };
    return { items: kept.items, next: upstream.after ? { a: upstream.after, n: seen } : null };
  });
  return { ...page, omittedNsfw: omitted > 0 ? omitted : null };
}
