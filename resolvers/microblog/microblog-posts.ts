import type { GraphQLResolveInfo } from 'graphql';
import type { ReplyRanking } from '../../adapters/microblog/microblog-operations.ts';
import type { Article, EditHistory, MicroblogPost, MicroblogProfile } from '../../adapters/shapes/microblog-shapes.ts';
import { ServiceError } from '../../schema/error-catalogue.ts';
import { readCursor, signCursor } from '../../schema/pipeline/cursor.ts';
import type { RequestContext } from '../../schema/pipeline/request-context.ts';
import { microblogClient, microblogLoaders, uniqueIds } from './microblog-context.ts';

type PageResult<T> = { items: T[]; nextCursor: string | null };

export async function getMicroblogPosts(
  args: { ids: string },
  ctx: RequestContext,
  info: GraphQLResolveInfo,
): Promise<{ items: MicroblogPost[]; notFound: string[] }> {
  const ids = uniqueIds(args.ids);
  const posts = await microblogLoaders(ctx).postsById.loadMany(ids);
  const items: MicroblogPost[] = [];
  const notFound: string[] = [];
  posts.forEach((post, index) => {
    if (post instanceof Error) throw post;
    if (post) items.push(post);
    else notFound.push(ids[index]);
  });
  ctx.meter.add(info, 'post', items.length);
  return { items, notFound };
}

export async function getMicroblogPost(args: { id: string }, ctx: RequestContext, info: GraphQLResolveInfo): Promise<MicroblogPost> {
  const post = await microblogClient(ctx).getPost(args.id);
  ctx.meter.add(info, 'post', 1);
  return post;
}

const RANKINGS: Record<'latest' | 'relevance' | 'likes', ReplyRanking> = { latest: 'Recency', relevance: 'Relevance', likes: 'Likes' };

export async function getMicroblogReplies(
  args: { id: string; sort: 'latest' | 'relevance' | 'likes'; cursor?: string },
  ctx: RequestContext,
  info: GraphQLResolveInfo,
): Promise<PageResult<MicroblogPost>> {
  const state = readCursor<{ c: string }>(ctx, 'getMicroblogReplies', { ...args });
  const page = await microblogClient(ctx).getReplies(args.id, { cursor: state?.c, rankingMode: RANKINGS[args.sort] });
  ctx.meter.add(info, 'post', page.items.length);
  return { items: page.items, nextCursor: page.next ? signCursor(ctx, 'getMicroblogReplies', { ...args }, { c: page.next }) : null };
}

export async function getMicroblogThread(args: { id: string }, ctx: RequestContext, info: GraphQLResolveInfo): Promise<MicroblogPost[]> {
  const thread = await microblogClient(ctx).getThread(args.id);
  ctx.meter.add(info, 'post', thread.length);
  return thread;
}

export async function getMicroblogReposters(
  args: { id: string; limit: number; cursor?: string },
  ctx: RequestContext,
  info: GraphQLResolveInfo,
): Promise<PageResult<MicroblogProfile>> {
  const state = readCursor<{ c: string }>(ctx, 'getMicroblogReposters', { ...args });
  const page = await microblogClient(ctx).getReposters(args.id, { count: args.limit, cursor: state?.c });
  ctx.meter.add(info, 'user', page.items.length);
  return { items: page.items, nextCursor: page.next ? signCursor(ctx, 'getMicroblogReposters', { ...args }, { c: page.next }) : null };
}

export async function getMicroblogArticle(args: { id: string }, ctx: RequestContext, info: GraphQLResolveInfo): Promise<Article> {
  const article = await microblogClient(ctx).getArticle(args.id);
  if (!article) {
    throw new ServiceError('not_found', {
      message: `Post ${args.id} carries no Article.`,
      details: { platform: 'microblog', reason: 'no_article' },
    });
  }
  ctx.meter.add(info, 'post', 1);
  return article;
}

export async function getMicroblogQuotes(
  args: { id: string; limit: number; cursor?: string },
  ctx: RequestContext,
  info: GraphQLResolveInfo,
): Promise<PageResult<MicroblogPost>> {
  const state = readCursor<{ c: string }>(ctx, 'getMicroblogQuotes', { ...args });
  const page = await microblogClient(ctx).getQuotes(args.id, { count: args.limit, cursor: state?.c });
  ctx.meter.add(info, 'post', page.items.length);
  return { items: page.items, nextCursor: page.next ? signCursor(ctx, 'getMicroblogQuotes', { ...args }, { c: page.next }) : null };
}

export async function getMicroblogPostEdits(args: { id: string }, ctx: RequestContext, info: GraphQLResolveInfo): Promise<EditHistory> {
  const history = await microblogClient(ctx).getEditHistory(args.id);
  ctx.meter.add(info, 'post', history.versions.length);
  return history;
}
