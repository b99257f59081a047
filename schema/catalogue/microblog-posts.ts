import { z } from 'zod';
import { ArticleShape, EditHistoryShape, MicroblogPostShape, MicroblogProfileShape } from '../../adapters/shapes/microblog-shapes.ts';
import { CURSOR, IDS, limit, POST_ID } from './microblog-inputs.ts';
import { defineOperation } from './operation.ts';
import { LOOKUP, page } from './payload.ts';
import * as posts from '../../resolvers/microblog/microblog-posts.ts';

const READ = ['read:microblog'] as const;

export const getMicroblogPosts = defineOperation({
  operationId: 'getMicroblogPosts',
  description:
    'Up to 100 posts by id, in request order (duplicates ignored). Ids that came back empty (deleted, suspended, protected, withheld or never existed) are listed in `meta.notFound` and not billed.',
  graphql: { kind: 'query', field: 'microblogPosts' },
  rest: { method: 'GET', path: '/v1/microblog/posts' },
  tool: 'get_microblog_posts',
  authentication: 'key',
  scopes: READ,
  billing: { minimumCredits: 1, returns: { post: 'data' }, rateLimitWeight: 2, maxUnits: { post: 100 } },
  input: z.object({ ids: IDS }),
  output: z.array(MicroblogPostShape),
  result: LOOKUP,
  resolve: posts.getMicroblogPosts,
  tag: 'Microblog',
  example: { ids: '2072651498910650367,2072653763834810367' },
});

export const getMicroblogPost = defineOperation({
  operationId: 'getMicroblogPost',
  description: 'One post. 404 when it does not exist, was deleted, or its author is protected or suspended.',
  graphql: { kind: 'query', field: 'microblogPost' },
  rest: { method: 'GET', path: '/v1/microblog/posts/:id' },
  tool: 'get_microblog_post',
  authentication: 'key',
  scopes: READ,
  billing: { minimumCredits: 1, returns: { post: 'data' }, rateLimitWeight: 1, maxUnits: { post: 1 } },
  input: z.object({ id: POST_ID }),
  output: MicroblogPostShape,
  resolve: posts.getMicroblogPost,
  tag: 'Microblog',
  example: { id: '2072653763834810367' },
});

export const getMicroblogReplies = defineOperation({
  operationId: 'getMicroblogReplies',
  description:
    "Replies under a post, including replies to replies; the post itself, posts above it and promoted posts are left out. `sort`: `latest` (newest first), `relevance` or `likes` (the platform's own rankings).",
  graphql: { kind: 'query', field: 'microblogPostReplies' },
  rest: { method: 'GET', path: '/v1/microblog/posts/:id/replies' },
  tool: 'get_microblog_replies',
  authentication: 'key',
  scopes: READ,
  billing: { minimumCredits: 1, returns: { post: 'data' }, rateLimitWeight: 2, maxUnits: { post: 100 } },
  input: z.object({
    id: POST_ID,
    cursor: CURSOR,
    sort: z.enum(['latest', 'relevance', 'likes']).default('latest').describe('`latest` (newest first), `relevance` or `likes`.'),
  }),
  output: z.array(MicroblogPostShape),
  result: page(),
  paginated: true,
  resolve: posts.getMicroblogReplies,
  tag: 'Microblog',
  example: { id: '2072651498910650367' },
});

export const getMicroblogThread = defineOperation({
  operationId: 'getMicroblogThread',
  description:
    "The author's thread containing the post, first post first: the author's earlier posts it continues from, the post, and the author's continuation. Any post of the thread may be passed; other people's replies are excluded. Assembled from the platform's first page of the conversation, so a thread folded behind a show-more control ends at the fold. 404 when the post does not exist.",
  graphql: { kind: 'query', field: 'microblogPostThread' },
  rest: { method: 'GET', path: '/v1/microblog/posts/:id/thread' },
  tool: 'get_microblog_thread',
  authentication: 'key',
  scopes: READ,
  billing: { minimumCredits: 1, returns: { post: 'data' }, rateLimitWeight: 2, maxUnits: { post: 50 } },
  input: z.object({ id: POST_ID }),
  output: z.array(MicroblogPostShape),
  resolve: posts.getMicroblogThread,
  tag: 'Microblog',
  example: { id: '2072657287050170367' },
});

export const getMicroblogReposters = defineOperation({
  operationId: 'getMicroblogReposters',
  description: 'Accounts that reposted a post; the platform may cap the list for very widely reposted posts. Who liked a post is unavailable.',
  graphql: { kind: 'query', field: 'microblogPostReposters' },
  rest: { method: 'GET', path: '/v1/microblog/posts/:id/reposters' },
  tool: 'get_microblog_reposters',
  authentication: 'key',
  scopes: READ,
  billing: { minimumCredits: 1, returns: { user: 'data' }, rateLimitWeight: 3, maxUnits: { user: 100 } },
  input: z.object({ id: POST_ID, limit: limit(100), cursor: CURSOR }),
  output: z.array(MicroblogProfileShape),
  result: page(),
  paginated: true,
  resolve: posts.getMicroblogReposters,
  tag: 'Microblog',
  example: { id: '2072653763834810367' },
});

export const getMicroblogArticle = defineOperation({
  operationId: 'getMicroblogArticle',
  description:
    'The Article carried by a post. Pass the id of the post that shares the Article (the number after `/status/` in its link); an Article link carries the Article\'s own id, which is not a post id. 404 when the post does not exist or is not an Article.',
  graphql: { kind: 'query', field: 'microblogPostArticle' },
  rest: { method: 'GET', path: '/v1/microblog/posts/:id/article' },
  tool: 'get_microblog_article',
  authentication: 'key',
  scopes: READ,
  billing: { minimumCredits: 1, returns: { post: 'data' }, rateLimitWeight: 1, maxUnits: { post: 1 } },
  input: z.object({ id: POST_ID }),
  output: ArticleShape,
  resolve: posts.getMicroblogArticle,
  tag: 'Microblog',
  example: { id: '2072654518809530367' },
});

export const getMicroblogQuotes = defineOperation({
  operationId: 'getMicroblogQuotes',
  description: 'Posts quoting a post, newest first.',
  graphql: { kind: 'query', field: 'microblogPostQuotes' },
  rest: { method: 'GET', path: '/v1/microblog/posts/:id/quotes' },
  tool: 'get_microblog_quotes',
  authentication: 'key',
  scopes: READ,
  billing: { minimumCredits: 1, returns: { post: 'data' }, rateLimitWeight: 2, maxUnits: { post: 100 } },
  input: z.object({ id: POST_ID, limit: limit(100), cursor: CURSOR }),
  output: z.array(MicroblogPostShape),
  result: page(),
  paginated: true,
  resolve: posts.getMicroblogQuotes,
  tag: 'Microblog',
  example: { id: '2072653512176570367' },
});

export const getMicroblogPostEdits = defineOperation({
  operationId: 'getMicroblogPostEdits',
  description:
    "A post's edit history: every version id oldest first, the edit window, and the versions the platform still returns. Any version's id may be passed. 404 when the post does not exist. Billed per version returned.",
  graphql: { kind: 'query', field: 'microblogPostEdits' },
  rest: { method: 'GET', path: '/v1/microblog/posts/:id/edits' },
  tool: 'get_microblog_post_edits',
  authentication: 'key',
  scopes: READ,
  billing: { minimumCredits: 1, returns: { post: 'versions' }, rateLimitWeight: 1, maxUnits: { post: 6 } },
  input: z.object({ id: POST_ID }),
  output: EditHistoryShape,
  resolve: posts.getMicroblogPostEdits,
  tag: 'Microblog',
  example: { id: '2072652002227130367' },
});
