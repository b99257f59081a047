import type { GraphQLResolveInfo } from 'graphql';
import type { Article, EditHistory, MicroblogList, MicroblogPost, MicroblogPostBase, MicroblogProfile, MicroblogSpace, MicroblogSpaceParticipant, AboutDetails } from '../../adapters/shapes/microblog-shapes.ts';
import type { Page } from '../../core/page.ts';
import type { RequestContext } from '../../core/request-context.ts';
import { userListPage, userTimelinePage } from './microblog-account-pages.ts';
import { microblogLoaders } from './microblog-context.ts';
import { getMicroblogListMembers, getMicroblogListPosts } from './microblog-lists.ts';
import { getMicroblogArticle, getMicroblogPostEdits, getMicroblogQuotes, getMicroblogReplies, getMicroblogReposters, getMicroblogThread } from './microblog-posts.ts';
import { getMicroblogUserAbout } from './microblog-users.ts';

/**
 * Fields a GraphQL query walks across, from an object the query already holds to what the platform links it to.
 * Single accounts go through the per-request loader, so every author of a page costs one round trip per 100;
 * pages reuse the root operations' resolvers with the parent's id, and their cursors are bound to the edge.
 * The schema bills what they return (resolvers never count units).
 */

type PageArgs = { limit?: number; cursor?: string };

export function authorProfile(post: MicroblogPostBase, ctx: RequestContext): Promise<MicroblogProfile | null> {
  return microblogLoaders(ctx).usersById.load(post.author.id);
}

export function listOwnerProfile(list: MicroblogList, ctx: RequestContext): Promise<MicroblogProfile | null> {
  return microblogLoaders(ctx).usersById.load(list.ownerId);
}

/** Hosts or speakers with an account id (the platform sometimes gives none), in the Space's order, found ones only. */
export async function participantProfiles(participants: readonly MicroblogSpaceParticipant[], ctx: RequestContext): Promise<MicroblogProfile[]> {
  const ids = [...new Set(participants.flatMap((participant) => (participant.id ? [participant.id] : [])))];
  const found = await microblogLoaders(ctx).usersById.loadMany(ids);
  return found.filter((profile): profile is MicroblogProfile => {
    if (profile instanceof Error) throw profile;
    return profile !== null;
  });
}

export const spaceHosts = (space: MicroblogSpace, ctx: RequestContext) => participantProfiles(space.hosts, ctx);
export const spaceSpeakers = (space: MicroblogSpace, ctx: RequestContext) => participantProfiles(space.speakers, ctx);

export function postReplies(post: MicroblogPostBase, args: { sort: 'latest' | 'relevance' | 'likes'; cursor?: string }, ctx: RequestContext, info: GraphQLResolveInfo): Promise<Page<MicroblogPost>> {
  return getMicroblogReplies({ ...args, id: post.id }, ctx, info);
}

export function postQuotes(post: MicroblogPostBase, args: { limit: number; cursor?: string }, ctx: RequestContext, info: GraphQLResolveInfo): Promise<Page<MicroblogPost>> {
  return getMicroblogQuotes({ ...args, id: post.id }, ctx, info);
}

export function postReposters(post: MicroblogPostBase, args: { limit: number; cursor?: string }, ctx: RequestContext, info: GraphQLResolveInfo): Promise<Page<MicroblogProfile>> {
  return getMicroblogReposters({ ...args, id: post.id }, ctx, info);
}

export function postThread(post: MicroblogPostBase, ctx: RequestContext): Promise<MicroblogPost[]> {
  return getMicroblogThread({ id: post.id }, ctx);
}

/** Only a post that carries an Article is asked for it: the others answer null without a round trip. */
export async function postArticle(post: MicroblogPostBase, ctx: RequestContext): Promise<Article | null> {
  return post.article ? getMicroblogArticle({ id: post.id }, ctx) : null;
}

export function postEdits(post: MicroblogPostBase, ctx: RequestContext): Promise<EditHistory> {
  return getMicroblogPostEdits({ id: post.id }, ctx);
}

/** A profile's timelines and relationship lists, walked from the profile itself: no lookup, none billed. */
export const profileTimeline =
  (kind: 'posts' | 'replies' | 'media' | 'highlights') =>
  (profile: MicroblogProfile, args: PageArgs, ctx: RequestContext, info: GraphQLResolveInfo): Promise<Page<MicroblogPost>> =>
    userTimelinePage(kind)({ ...args, user: profile.id }, ctx, info, profile);

export const profileList =
  (kind: 'followers' | 'following' | 'affiliates') =>
  (profile: MicroblogProfile, args: PageArgs, ctx: RequestContext, info: GraphQLResolveInfo): Promise<Page<MicroblogProfile>> =>
    userListPage(kind)({ ...args, user: profile.id }, ctx, info, profile);

export function profileAbout(profile: MicroblogProfile, ctx: RequestContext, info: GraphQLResolveInfo): Promise<AboutDetails> {
  return getMicroblogUserAbout({ user: profile.username }, ctx, info);
}

export function listMembers(list: MicroblogList, args: { limit: number; cursor?: string }, ctx: RequestContext, info: GraphQLResolveInfo): Promise<Page<MicroblogProfile>> {
  return getMicroblogListMembers({ ...args, id: list.id }, ctx, info);
}

export function listPosts(list: MicroblogList, args: { limit: number; cursor?: string }, ctx: RequestContext, info: GraphQLResolveInfo): Promise<Page<MicroblogPost>> {
  return getMicroblogListPosts({ ...args, id: list.id }, ctx, info);
}
