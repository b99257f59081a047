import type { GraphQLResolveInfo } from 'graphql';
import { repliesOf, threadOf } from '../../adapters/microblog/microblog-conversation.ts';
import type { ReplyRanking } from '../../adapters/microblog/microblog-operations.ts';
import type { Article, EditHistory, MicroblogPost, MicroblogProfile } from '../../adapters/shapes/microblog-shapes.ts';
import { ServiceError } from '../../core/error-catalogue.ts';
import type { Page } from '../../core/page.ts';
import type { RequestContext } from '../../core/request-context.ts';
import { splitFound } from '../bulk-lookup.ts';
import { cursorPage } from '../paging.ts';
import { microblogClient, microblogLoaders, uniqueIds } from './microblog-context.ts';

export async function getMicroblogPosts(args: { ids: string }, ctx: RequestContext): Promise<{ items: MicroblogPost[]; notFound: string[] }> {
  const ids = uniqueIds(args.ids);
  const { items, missing } = splitFound(ids, await microblogLoaders(ctx).postsById.loadMany(ids));
  return { items, notFound: missing };
}

export function getMicroblogPost(args: { id: string }, ctx: RequestContext): Promise<MicroblogPost> {
  return microblogLoaders(ctx).post(args.id);
}

const RANKINGS: Record<'latest' | 'relevance' | 'likes', ReplyRanking> = { latest: 'Recency', relevance: 'Relevance', likes: 'Likes' };

export function getMicroblogReplies(
  args: { id: string; sort: 'latest' | 'relevance' | 'likes'; cursor?: string },
  ctx: RequestContext,
  info: GraphQLResolveInfo,
): Promise<Page<MicroblogPost>> {
  return cursorPage<MicroblogPost, string>(ctx, info, args, async (cursor) =>
    repliesOf(args.id, await microblogLoaders(ctx).conversation({ postId: args.id, cursor, rankingMode: RANKINGS[args.sort] })),
  );
}

export async function getMicroblogThread(args: { id: string }, ctx: RequestContext): Promise<MicroblogPost[]> {
  return threadOf(args.id, await microblogLoaders(ctx).conversation({ postId: args.id }));
}

export function getMicroblogReposters(args: { id: string; limit: number; cursor?: string }, ctx: RequestContext, info: GraphQLResolveInfo): Promise<Page<MicroblogProfile>> {
  return cursorPage<MicroblogProfile, string>(ctx, info, args, (cursor) => microblogClient(ctx).getReposters(args.id, { count: args.limit, cursor }));
}

export async function getMicroblogArticle(args: { id: string }, ctx: RequestContext): Promise<Article> {
  const article = await microblogClient(ctx).getArticle(args.id);
  if (!article) {
    throw new ServiceError('not_found', {
      message: `Post ${args.id} carries no Article.`,
      details: { platform: 'microblog', reason: 'no_article' },
    });
  }
  return article;
}

export function getMicroblogQuotes(args: { id: string; limit: number; cursor?: string }, ctx: RequestContext, info: GraphQLResolveInfo): Promise<Page<MicroblogPost>> {
  return cursorPage<MicroblogPost, string>(ctx, info, args, (cursor) => microblogClient(ctx).getQuotes(args.id, { count: args.limit, cursor }));
}

export function getMicroblogPostEdits(args: { id: string }, ctx: RequestContext): Promise<EditHistory> {
  return microblogLoaders(ctx).editHistory(args.id);
}
