import type { GraphQLResolveInfo } from 'graphql';
import { subforumNotPublicReason } from '../../adapters/forum/forum-error-classifier.ts';
import type { RequestContext } from '../../schema/pipeline/request-context.ts';
import { readCursor, signCursor } from '../../schema/pipeline/cursor.ts';
import type { SubforumPage } from '../../schema/types/forum-resources.ts';
import { forumClient } from './forum-context.ts';
import { omitNsfw } from './forum-search-query.ts';

export interface SearchSubforumsArgs {
  query: string;
  sort: 'relevance' | 'activity';
  includeNsfw: boolean;
  limit: number;
  cursor?: string;
}

const OPERATION = 'searchSubforums';

/**
 * The platform is asked with NSFW included and the service removes NSFW communities itself, so
 * `omittedNsfw` is exact. Private communities (listed by the platform with empty counters) are dropped too.
 */
export async function searchSubforums(args: SearchSubforumsArgs, ctx: RequestContext, info: GraphQLResolveInfo): Promise<SubforumPage> {
  const state = readCursor<{ after: string }>(ctx, OPERATION, { ...args });
  const page = await forumClient(ctx).searchSubforums({ q: args.query, sort: args.sort, limit: args.limit, after: state?.after, includeOver18: true });
  const readable = page.items.filter((sub) => subforumNotPublicReason(sub) === undefined);
  const { items, omitted } = omitNsfw(readable, args.includeNsfw);
  ctx.meter.add(info, 'subforum', items.length);
  return {
    items,
    nextCursor: page.after ? signCursor(ctx, OPERATION, { ...args }, { after: page.after }) : null,
    omittedNsfw: omitted > 0 ? omitted : null,
  };
}
