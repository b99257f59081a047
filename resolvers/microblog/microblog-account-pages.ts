import type { GraphQLResolveInfo } from 'graphql';
import type { Page } from '../../adapters/microblog/microblog-client.ts';
import type { MicroblogPost, MicroblogProfile } from '../../adapters/shapes/microblog-shapes.ts';
import { readCursor, signCursor } from '../../schema/pipeline/cursor.ts';
import type { RequestContext } from '../../schema/pipeline/request-context.ts';
import { resolveAccount } from './microblog-accounts.ts';
import { microblogClient } from './microblog-context.ts';

/** Paging state of the operations over one account: the resolved account and the platform's cursor. */
interface AccountPageState {
  u: string;
  c: string;
}

type AccountArgs = { user: string; limit?: number; cursor?: string };

/**
 * One page over an account's posts or relationships. The first page resolves `{user}` (404 when it does not
 * exist or is protected) and bills that profile lookup; the cursor carries the resolved account, so later pages
 * neither look it up nor bill it again.
 */
async function accountPage<T extends MicroblogPost | MicroblogProfile>(
  operationId: string,
  args: AccountArgs,
  ctx: RequestContext,
  info: GraphQLResolveInfo,
  unit: 'post' | 'user',
  fetch: (userId: string, page: { cursor?: string; count?: number }) => Promise<Page<T>>,
): Promise<{ items: T[]; nextCursor: string | null }> {
  const state = readCursor<AccountPageState>(ctx, operationId, { ...args });
  const userId = state ? state.u : (await resolveAccount(ctx, info, args.user, { requirePublic: true })).id;
  const page = await fetch(userId, { cursor: state?.c, count: args.limit });
  ctx.meter.add(info, unit, page.items.length);
  return { items: page.items, nextCursor: page.next ? signCursor(ctx, operationId, { ...args }, { u: userId, c: page.next } satisfies AccountPageState) : null };
}

export const userTimelinePage = (operationId: string, kind: 'posts' | 'replies' | 'media' | 'highlights') =>
  (args: AccountArgs, ctx: RequestContext, info: GraphQLResolveInfo) =>
    accountPage(operationId, args, ctx, info, 'post', (userId, page) => microblogClient(ctx).getUserTimeline(userId, kind, page));

export const userListPage = (operationId: string, kind: 'followers' | 'following' | 'affiliates') =>
  (args: AccountArgs, ctx: RequestContext, info: GraphQLResolveInfo) =>
    accountPage(operationId, args, ctx, info, 'user', (userId, page) => microblogClient(ctx).getUserList(userId, kind, page));
