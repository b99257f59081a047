import { z } from 'zod';
import {
  MicroblogListShape,
  MicroblogPostBaseShape,
  MicroblogPostShape,
  MicroblogProfileShape,
  MicroblogSpaceShape,
  type MicroblogList,
  type MicroblogPostBase,
  type MicroblogProfile,
  type MicroblogSpace,
} from '../adapters/shapes/microblog-shapes.ts';
import * as walks from '../resolvers/microblog/microblog-walks.ts';
import { getMicroblogListMembers, getMicroblogListPosts } from './catalogue/microblog-lists.ts';
import {
  getMicroblogArticle,
  getMicroblogPostEdits,
  getMicroblogQuotes,
  getMicroblogReplies,
  getMicroblogReposters,
  getMicroblogThread,
} from './catalogue/microblog-posts.ts';
import * as users from './catalogue/microblog-users.ts';
import { walkEdge } from './walk-edge.ts';
import { objectTypeFromZod } from './zod-graphql.ts';

/** The microblog's graph: edges a query walks from posts, profiles, Lists and Spaces (GraphQL only). */

const MicroblogPostType = objectTypeFromZod<MicroblogPostBase>('MicroblogPost', MicroblogPostShape);
const MicroblogEmbeddedPostType = objectTypeFromZod<MicroblogPostBase>('MicroblogEmbeddedPost', MicroblogPostBaseShape);
const MicroblogProfileType = objectTypeFromZod<MicroblogProfile>('MicroblogProfile', MicroblogProfileShape);
const MicroblogListType = objectTypeFromZod<MicroblogList>('MicroblogList', MicroblogListShape);
const MicroblogSpaceType = objectTypeFromZod<MicroblogSpace>('MicroblogSpace', MicroblogSpaceShape);

const BY_ID = ['id'] as const;
const BY_USER = ['user'] as const;

// A quoted or reposted post is walked like any other: `quotedPost { authorProfile }` is the quoted post's author.
for (const post of [MicroblogPostType, MicroblogEmbeddedPostType]) {
  walkEdge(post, 'authorProfile', {
    op: users.getMicroblogUser,
    fromParent: BY_USER,
    description: "The author's full profile, batched with every other account of the request (one round trip per 100). Null when the account is unavailable.",
    resolve: (parent, _args, ctx) => walks.authorProfile(parent, ctx),
  });
  walkEdge(post, 'replies', {
    op: getMicroblogReplies,
    fromParent: BY_ID,
    description: 'Replies under this post, one platform page at a time, as `microblogPostReplies` returns them.',
    resolve: (parent, args, ctx, info) => walks.postReplies(parent, args as never, ctx, info),
  });
  walkEdge(post, 'quotes', {
    op: getMicroblogQuotes,
    fromParent: BY_ID,
    description: 'Posts quoting this post, newest first, as `microblogPostQuotes` returns them.',
    resolve: (parent, args, ctx, info) => walks.postQuotes(parent, args as never, ctx, info),
  });
  walkEdge(post, 'thread', {
    op: getMicroblogThread,
    fromParent: BY_ID,
    description: "The author's thread containing this post, first post first, as `microblogPostThread` returns it.",
    resolve: (parent, _args, ctx) => walks.postThread(parent, ctx),
  });
  walkEdge(post, 'reposters', {
    op: getMicroblogReposters,
    fromParent: BY_ID,
    description: 'Accounts that reposted this post, as `microblogPostReposters` returns them.',
    resolve: (parent, args, ctx, info) => walks.postReposters(parent, args as never, ctx, info),
  });
  walkEdge(post, 'fullArticle', {
    op: getMicroblogArticle,
    fromParent: BY_ID,
    description: 'The whole Article this post carries (text, Markdown, blocks, media), where `article` is its preview. Null, without a round trip or a charge, when the post carries none.',
    resolve: (parent, _args, ctx) => walks.postArticle(parent, ctx),
  });
  walkEdge(post, 'editHistory', {
    op: getMicroblogPostEdits,
    fromParent: BY_ID,
    description: "This post's edit history, as `microblogPostEdits` returns it.",
    resolve: (parent, _args, ctx) => walks.postEdits(parent, ctx),
  });
}

const PROFILE_PAGES = [
  ['posts', users.getMicroblogUserPosts, walks.profileTimeline('posts'), "The account's posts and reposts, newest first, without replies"],
  ['postsAndReplies', users.getMicroblogUserPostsAndReplies, walks.profileTimeline('replies'), "The account's posts, reposts and replies, newest first"],
  ['media', users.getMicroblogUserMedia, walks.profileTimeline('media'), "The account's own posts carrying photos, videos or GIFs, newest first"],
  ['highlights', users.getMicroblogUserHighlights, walks.profileTimeline('highlights'), 'Posts the account features'],
  ['followers', users.getMicroblogUserFollowers, walks.profileList('followers'), 'Followers, most recent first (the platform chooses the page size)'],
  ['following', users.getMicroblogUserFollowing, walks.profileList('following'), 'Accounts the account follows, most recent first (the platform chooses the page size)'],
  ['affiliates', users.getMicroblogUserAffiliates, walks.profileList('affiliates'), 'Accounts a verified organization lists as affiliated'],
] as const;

for (const [name, op, resolve, what] of PROFILE_PAGES) {
  walkEdge(MicroblogProfileType, name, {
    op,
    fromParent: BY_USER,
    description: `${what}, one platform page at a time; no profile lookup is billed, the walk starts from this profile. Null, with an error, for a protected account or a bad cursor.`,
    resolve: (parent, args, ctx, info) => resolve(parent, args as never, ctx, info),
  });
}

walkEdge(MicroblogProfileType, 'about', {
  op: users.getMicroblogUserAbout,
  fromParent: BY_USER,
  description: 'About-this-account details. Null, with an error, for a protected account.',
  resolve: (parent, _args, ctx, info) => walks.profileAbout(parent, ctx, info),
});

walkEdge(MicroblogListType, 'ownerProfile', {
  op: users.getMicroblogUser,
  fromParent: BY_USER,
  description: "The List owner's full profile, batched with every other account of the request. Null when the account is unavailable.",
  resolve: (parent, _args, ctx) => walks.listOwnerProfile(parent, ctx),
});
walkEdge(MicroblogListType, 'members', {
  op: getMicroblogListMembers,
  fromParent: BY_ID,
  description: "Accounts in this List, in the platform's order, as `microblogListMembers` returns them.",
  resolve: (parent, args, ctx, info) => walks.listMembers(parent, args as never, ctx, info),
});
walkEdge(MicroblogListType, 'posts', {
  op: getMicroblogListPosts,
  fromParent: BY_ID,
  description: "Posts by this List's members, newest first, as `microblogListPosts` returns them.",
  resolve: (parent, args, ctx, info) => walks.listPosts(parent, args as never, ctx, info),
});

for (const [name, resolve, who] of [
  ['hostProfiles', walks.spaceHosts, 'hosts'],
  ['speakerProfiles', walks.spaceSpeakers, 'speakers'],
] as const) {
  walkEdge(MicroblogSpaceType, name, {
    op: users.getMicroblogUsers,
    fromParent: ['ids'],
    returns: { shape: z.array(MicroblogProfileShape), units: { profile: 'data' }, asked: {} },
    description: `Full profiles of the Space's ${who} that have an account id, in the Space's order, batched with every other account of the request; unavailable accounts are left out.`,
    resolve: (parent, _args, ctx) => resolve(parent, ctx),
  });
}
