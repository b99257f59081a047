import type { GraphQLResolveInfo } from 'graphql';
import type { Page } from '../../adapters/microblog/microblog-client.ts';
import type { MicroblogList, MicroblogPost, MicroblogProfile, MicroblogSpace } from '../../adapters/shapes/microblog-shapes.ts';
import { readCursor, signCursor } from '../../schema/pipeline/cursor.ts';
import type { RequestContext } from '../../schema/pipeline/request-context.ts';
import { microblogClient } from './microblog-context.ts';

export async function getMicroblogList(args: { id: string }, ctx: RequestContext, info: GraphQLResolveInfo): Promise<MicroblogList> {
  const list = await microblogClient(ctx).getList(args.id);
  ctx.meter.add(info, 'list', 1);
  return list;
}

type ListArgs = { id: string; limit: number; cursor?: string };

/**
 * A page of a List's members or posts. The platform pages a private List's timelines as empty; on the first page
 * the List itself is read alongside (not billed) so a missing or private List is a 404.
 */
async function listPage<T>(
  operationId: string,
  args: ListArgs,
  ctx: RequestContext,
  info: GraphQLResolveInfo,
  unit: 'user' | 'post',
  fetch: (page: { cursor?: string; count: number }) => Promise<Page<T>>,
): Promise<{ items: T[]; nextCursor: string | null }> {
  const state = readCursor<{ c: string }>(ctx, operationId, { ...args });
  const [page] = await Promise.all([fetch({ cursor: state?.c, count: args.limit }), state ? undefined : microblogClient(ctx).getList(args.id)]);
  ctx.meter.add(info, unit, page.items.length);
  return { items: page.items, nextCursor: page.next ? signCursor(ctx, operationId, { ...args }, { c: page.next }) : null };
}

export function getMicroblogListMembers(args: ListArgs, ctx: RequestContext, info: GraphQLResolveInfo): Promise<{ items: MicroblogProfile[]; nextCursor: string | null }> {
  return listPage('getMicroblogListMembers', args, ctx, info, 'user', (page) => microblogClient(ctx).getListMembers(args.id, page));
}

export function getMicroblogListPosts(args: ListArgs, ctx: RequestContext, info: GraphQLResolveInfo): Promise<{ items: MicroblogPost[]; nextCursor: string | null }> {
  return listPage('getMicroblogListPosts', args, ctx, info, 'post', (page) => microblogClient(ctx).getListPosts(args.id, page));
}

export async function getMicroblogSpace(args: { id: string }, ctx: RequestContext, info: GraphQLResolveInfo): Promise<MicroblogSpace> {
  const space = await microblogClient(ctx).getSpace(args.id);
  ctx.meter.add(info, 'space', 1);
  return space;
}
