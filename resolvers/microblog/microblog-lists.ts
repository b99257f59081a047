import type { GraphQLResolveInfo } from 'graphql';
import type { Page as UpstreamPage } from '../../adapters/microblog/microblog-client.ts';
import type { MicroblogList, MicroblogPost, MicroblogProfile, MicroblogSpace } from '../../adapters/shapes/microblog-shapes.ts';
import type { Page } from '../../core/page.ts';
import type { RequestContext } from '../../core/request-context.ts';
import { capped } from '../../adapters/shapes/paging-shapes.ts';
import { cursorPage } from '../paging.ts';
import { microblogClient } from './microblog-context.ts';

export function getMicroblogList(args: { id: string }, ctx: RequestContext): Promise<MicroblogList> {
  return microblogClient(ctx).getList(args.id);
}

type ListArgs = { id: string; limit: number; cursor?: string };

/**
 * Paging state over a List: the platform's cursor, and for members how many came, how many the platform listed but
 * were left out (suspended), and how many the List has.
 */
interface ListPageState {
  c: string;
  n?: number;
  o?: number;
  t?: number;
}

/**
 * A page of a List's members or posts. The platform pages a private List's timelines as empty; on the first page
 * the List itself is read alongside (not billed) so a missing or private List is a 404. Its member count ends a
 * walk over the members on the page that reaches it, instead of a billed empty page after it; members the platform
 * lists but the page leaves out (suspended) count toward it.
 */
function listPage<T>(
  args: ListArgs,
  ctx: RequestContext,
  info: GraphQLResolveInfo,
  fetch: (page: { cursor?: string; count: number }) => Promise<UpstreamPage<T>>,
  counted: boolean,
): Promise<Page<T>> {
  return cursorPage<T, ListPageState>(ctx, info, args, async (state) => {
    const [page, list] = await Promise.all([fetch({ cursor: state?.c, count: args.limit }), state ? undefined : microblogClient(ctx).getList(args.id)]);
    const total = state?.t ?? (counted ? list?.memberCount : undefined);
    const seen = (state?.n ?? 0) + page.items.length;
    const leftOut = (state?.o ?? 0) + (page.leftOut ?? 0);
    if (page.truncated) return { items: page.items, next: null, truncated: { ...page.truncated, seen, expected: total ?? null } };
    // The platform ended the members short of the List's own count of them.
    if (!page.next && total !== undefined && seen + leftOut < total) return { items: page.items, next: null, truncated: capped(seen, total) };
    const ended = !page.next || (total !== undefined && seen + leftOut >= total);
    return { items: page.items, next: ended ? null : { c: page.next as string, ...(total === undefined ? {} : { n: seen, ...(leftOut ? { o: leftOut } : {}), t: total }) } };
  });
}

export function getMicroblogListMembers(args: ListArgs, ctx: RequestContext, info: GraphQLResolveInfo): Promise<Page<MicroblogProfile>> {
  return listPage(args, ctx, info, (page) => microblogClient(ctx).getListMembers(args.id, page), true);
}

export function getMicroblogListPosts(args: ListArgs, ctx: RequestContext, info: GraphQLResolveInfo): Promise<Page<MicroblogPost>> {
  return listPage(args, ctx, info, (page) => microblogClient(ctx).getListPosts(args.id, page), false);
}

export function getMicroblogSpace(args: { id: string }, ctx: RequestContext): Promise<MicroblogSpace> {
  return microblogClient(ctx).getSpace(args.id);
}
