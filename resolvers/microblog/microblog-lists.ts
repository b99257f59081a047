import type { GraphQLResolveInfo } from 'graphql';
import type { Page as UpstreamPage } from '../../adapters/microblog/microblog-client.ts';
import type { MicroblogList, MicroblogPost, MicroblogProfile, MicroblogSpace } from '../../adapters/shapes/microblog-shapes.ts';
import type { Page } from '../../core/page.ts';
import type { RequestContext } from '../../core/request-context.ts';
import { cursorPage } from '../paging.ts';
import { microblogClient } from './microblog-context.ts';

export function getMicroblogList(args: { id: string }, ctx: RequestContext): Promise<MicroblogList> {
  return microblogClient(ctx).getList(args.id);
}

type ListArgs = { id: string; limit: number; cursor?: string };

/**
 * A page of a List's members or posts. The platform pages a private List's timelines as empty; on the first page
 * the List itself is read alongside (not billed) so a missing or private List is a 404.
 */
function listPage<T>(args: ListArgs, ctx: RequestContext, info: GraphQLResolveInfo, fetch: (page: { cursor?: string; count: number }) => Promise<UpstreamPage<T>>): Promise<Page<T>> {
  return cursorPage<T, string>(ctx, info, args, async (cursor) => {
    const [page] = await Promise.all([fetch({ cursor, count: args.limit }), cursor ? undefined : microblogClient(ctx).getList(args.id)]);
    return page;
  });
}

export function getMicroblogListMembers(args: ListArgs, ctx: RequestContext, info: GraphQLResolveInfo): Promise<Page<MicroblogProfile>> {
  return listPage(args, ctx, info, (page) => microblogClient(ctx).getListMembers(args.id, page));
}

export function getMicroblogListPosts(args: ListArgs, ctx: RequestContext, info: GraphQLResolveInfo): Promise<Page<MicroblogPost>> {
  return listPage(args, ctx, info, (page) => microblogClient(ctx).getListPosts(args.id, page));
}

export function getMicroblogSpace(args: { id: string }, ctx: RequestContext): Promise<MicroblogSpace> {
  return microblogClient(ctx).getSpace(args.id);
}
