import type { GraphQLResolveInfo } from 'graphql';
import { z } from 'zod';
import type { Page } from '../../core/page.ts';
import type { RequestContext } from '../../core/request-context.ts';
import { AboutDetailsShape, MicroblogPostShape, MicroblogProfileShape, type MicroblogPost, type MicroblogProfile } from '../../adapters/shapes/microblog-shapes.ts';
import { CURSOR, IDS, limit, USER_REF } from './microblog-inputs.ts';
import { defineOperation } from './operation.ts';
import { LOOKUP, page } from './payload.ts';
import * as users from '../../resolvers/microblog/microblog-users.ts';
import { userListPage, userTimelinePage } from '../../resolvers/microblog/microblog-account-pages.ts';

const READ = ['read:microblog'] as const;

export const searchMicroblogUsers = defineOperation({
  operationId: 'searchMicroblogUsers',
  description: "Find accounts by name, username or bio, ranked by the platform's people search.",
  graphql: { kind: 'query', field: 'microblogUserSearch' },
  rest: { method: 'POST', path: '/v1/microblog/users/search' },
  tool: 'search_microblog_users',
  authentication: 'key',
  scopes: READ,
  billing: { minimumCredits: 1, returns: { user: 'data' }, rateLimitWeight: 2, maxUnits: { user: 20 } },
  input: z.object({
    query: z.string().min(1).max(100).describe('Name, username or bio words, 1 to 100 characters.'),
    limit: limit(20),
    cursor: CURSOR,
  }),
  output: z.array(MicroblogProfileShape),
  result: page(),
  paginated: true,
  resolve: users.searchMicroblogUsers,
  tag: 'Microblog',
  example: { query: 'alice' },
});

export const getMicroblogUser = defineOperation({
  operationId: 'getMicroblogUser',
  description: "One account's profile. A protected account's profile is returned (`protected` says so); a suspended or nonexistent one is 404.",
  graphql: { kind: 'query', field: 'microblogUser' },
  rest: { method: 'GET', path: '/v1/microblog/users/:user' },
  tool: 'get_microblog_user',
  authentication: 'key',
  scopes: READ,
  billing: { minimumCredits: 1, returns: { profile: 'data' }, rateLimitWeight: 1, maxUnits: { profile: 1 } },
  input: z.object({ user: USER_REF }),
  output: MicroblogProfileShape,
  resolve: users.getMicroblogUser,
  tag: 'Microblog',
  example: { user: 'simdevs' },
});

export const getMicroblogUsers = defineOperation({
  operationId: 'getMicroblogUsers',
  description:
    'Up to 100 profiles by id, in request order (duplicates ignored). Ids that came back empty (suspended, deactivated, deleted, protected, withheld or never existed) are listed in `meta.notFound` and not billed.',
  graphql: { kind: 'query', field: 'microblogUsers' },
  rest: { method: 'GET', path: '/v1/microblog/users' },
  tool: 'get_microblog_users',
  authentication: 'key',
  scopes: READ,
  billing: { minimumCredits: 1, returns: { profile: 'data' }, rateLimitWeight: 2, maxUnits: { profile: 100 } },
  input: z.object({ ids: IDS }),
  output: z.array(MicroblogProfileShape),
  result: LOOKUP,
  resolve: users.getMicroblogUsers,
  tag: 'Microblog',
  example: { ids: '1500000001,1500000002' },
});

export const getMicroblogUserAbout = defineOperation({
  operationId: 'getMicroblogUserAbout',
  description:
    'About-this-account details. 404 when the account does not exist or is protected. Billed as one profile, plus one more when `{user}` is a numeric id.',
  graphql: { kind: 'query', field: 'microblogUserAbout' },
  rest: { method: 'GET', path: '/v1/microblog/users/:user/about' },
  tool: 'get_microblog_user_about',
  authentication: 'key',
  scopes: READ,
  billing: { minimumCredits: 1, lookup: { unit: 'profile', when: 'numeric_user' }, returns: { profile: 'data' }, rateLimitWeight: 1, maxUnits: { profile: 2 } },
  input: z.object({ user: USER_REF }),
  output: AboutDetailsShape,
  resolve: users.getMicroblogUserAbout,
  tag: 'Microblog',
  example: { user: 'simdevs' },
});

/** Operations that page over one account's posts or relationships; the first page also bills the profile lookup. */
function accountPage<const Unit extends 'post' | 'user'>(spec: {
  operationId: string;
  field: string;
  path: string;
  tool: string;
  description: string;
  unit: Unit;
  weight: number;
  /** Page size bound; null when the platform chooses it (followers, following). */
  max: number | null;
  example: string;
  resolve: (args: { user: string; limit?: number; cursor?: string }, ctx: RequestContext, info: GraphQLResolveInfo) => Promise<Page<Unit extends 'post' ? MicroblogPost : MicroblogProfile>>;
}) {
  const withLimit = spec.max !== null;
  return defineOperation({
    operationId: spec.operationId,
    description: spec.description,
    graphql: { kind: 'query', field: spec.field },
    rest: { method: 'GET', path: spec.path },
    tool: spec.tool,
    authentication: 'key',
    scopes: READ,
    billing: {
      minimumCredits: 1,
      lookup: { unit: 'profile', when: 'first_page' },
      returns: { [spec.unit]: 'data' },
      rateLimitWeight: spec.weight,
      maxUnits: { profile: 1, [spec.unit]: spec.max ?? 100 },
    },
    input: withLimit ? z.object({ user: USER_REF, limit: limit(spec.max!), cursor: CURSOR }) : z.object({ user: USER_REF, cursor: CURSOR }),
    output: z.array(spec.unit === 'post' ? MicroblogPostShape : MicroblogProfileShape),
    result: page(),
    // The input is one of two shapes chosen here at runtime; the resolver takes what both have in common.
    resolve: spec.resolve as never,
    paginated: true,
    tag: 'Microblog',
    example: { user: spec.example },
  });
}

export const getMicroblogUserHighlights = accountPage({
  operationId: 'getMicroblogUserHighlights',
  resolve: userTimelinePage('highlights'),
  field: 'microblogUserHighlights',
  path: '/v1/microblog/users/:user/highlights',
  tool: 'get_microblog_user_highlights',
  description:
    'Posts the account features. Empty for accounts without the paid tier that allows highlights. 404 when the account does not exist or is protected. The first page also bills one profile lookup.',
  unit: 'post',
  weight: 2,
  max: 20,
  example: 'simdevs',
});

export const getMicroblogUserAffiliates = accountPage({
  operationId: 'getMicroblogUserAffiliates',
  resolve: userListPage('affiliates'),
  field: 'microblogUserAffiliates',
  path: '/v1/microblog/users/:user/affiliates',
  tool: 'get_microblog_user_affiliates',
  description:
    'Accounts a verified organization lists as affiliated. Empty for accounts that are not verified organizations. 404 when the account does not exist or is protected. First page also bills one profile lookup.',
  unit: 'user',
  weight: 2,
  max: 100,
  example: 'simdevs',
});

export const getMicroblogUserFollowers = accountPage({
  operationId: 'getMicroblogUserFollowers',
  resolve: userListPage('followers'),
  field: 'microblogUserFollowers',
  path: '/v1/microblog/users/:user/followers',
  tool: 'get_microblog_user_followers',
  description:
    'Followers, most recent first; the platform chooses the page size (about 70; at most 100 per page, the rest opening the next). 404 when the account does not exist or is protected. First page also bills one profile lookup.',
  unit: 'user',
  weight: 3,
  max: null,
  example: 'simdevs',
});

export const getMicroblogUserFollowing = accountPage({
  operationId: 'getMicroblogUserFollowing',
  resolve: userListPage('following'),
  field: 'microblogUserFollowing',
  path: '/v1/microblog/users/:user/following',
  tool: 'get_microblog_user_following',
  description:
    'Accounts the account follows, most recent first; the platform chooses the page size (about 70; at most 100 per page, the rest opening the next). 404 when the account does not exist or is protected. First page also bills one profile lookup.',
  unit: 'user',
  weight: 3,
  max: null,
  example: 'alice',
});

export const getMicroblogUserPosts = accountPage({
  operationId: 'getMicroblogUserPosts',
  resolve: userTimelinePage('posts'),
  field: 'microblogUserPosts',
  path: '/v1/microblog/users/:user/posts',
  tool: 'get_microblog_user_posts',
  description:
    "The account's posts and reposts, newest first, without replies: a self-reply continuing a thread is a reply too (posts-and-replies has it). The pinned post is not repeated (see the profile's `pinnedPostIds`). 404 when the account does not exist or is protected. First page also bills one profile lookup.",
  unit: 'post',
  weight: 2,
  max: 100,
  example: 'simdevs',
});

export const getMicroblogUserPostsAndReplies = accountPage({
  operationId: 'getMicroblogUserPostsAndReplies',
  resolve: userTimelinePage('replies'),
  field: 'microblogUserPostsAndReplies',
  path: '/v1/microblog/users/:user/posts-and-replies',
  tool: 'get_microblog_user_posts_and_replies',
  description:
    "The account's own posts, reposts and replies, newest first (the posts its replies answer are not included). 404 when the account does not exist or is protected. First page also bills one profile lookup.",
  unit: 'post',
  weight: 2,
  max: 100,
  example: 'carol',
});

export const getMicroblogUserMedia = accountPage({
  operationId: 'getMicroblogUserMedia',
  resolve: userTimelinePage('media'),
  field: 'microblogUserMedia',
  path: '/v1/microblog/users/:user/media',
  tool: 'get_microblog_user_media',
  description:
    "The account's own posts carrying photos, videos or GIFs, newest first. 404 when the account does not exist or is protected. First page also bills one profile lookup.",
  unit: 'post',
  weight: 2,
  max: 100,
  example: 'simdevs',
});
