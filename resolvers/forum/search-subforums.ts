import type { GraphQLResolveInfo } from 'graphql';
import { subforumNotPublicReason } from '../../adapters/forum/forum-error-classifier.ts';
import type { Subforum } from '../../adapters/shapes/forum-shapes.ts';
import type { Page } from '../../core/page.ts';
import type { RequestContext } from '../../core/request-context.ts';
import { cursorPage } from '../paging.ts';
import { forumClient } from './forum-context.ts';
import { omitNsfw } from './forum-search-query.ts';

export interface SearchSubforumsArgs {
  query: string;
  sort: 'relevance' | 'activity';
  includeNsfw: boolean;
  limit: number;
  cursor?: string;
}

/**
 * The platform is asked with NSFW included and the service removes NSFW communities itself, so
 * `omittedNsfw` is exact. Private communities (listed by the platform with empty counters) are dropped too.
 */
export async function searchSubforums(args: SearchSubforumsArgs, ctx: RequestContext, info: GraphQLResolveInfo): Promise<Page<Subforum> & { omittedNsfw: number | null }> {
  let omitted = 0;
  const page = await cursorPage<Subforum, string>(ctx, info, args, async (after) => {
    const upstream = await forumClient(ctx).searchSubforums({ q: args.query, sort: args.sort, limit: args.limit, after, includeOver18: true });
    const kept = omitNsfw(upstream.items.filter((sub) => subforumNotPublicReason(sub) === undefined), args.includeNsfw);
    omitted = kept.omitted;
    return { items: kept.items, next: upstream.after };
  });
  return { ...page, omittedNsfw: omitted > 0 ? omitted : null };
}
