import { z } from 'zod';
import { ForumPostShape, SubforumShape } from '../../adapters/shapes/forum-shapes.ts';
import { defineOperation } from './operation.ts';
import { OMITTED_NSFW, page } from './payload.ts';
import { searchForumPosts as searchPosts, searchSubforumPosts as searchInSubforum } from '../../resolvers/forum/search-forum-posts.ts';
import { searchSubforums as searchCommunities } from '../../resolvers/forum/search-subforums.ts';
import { CURSOR, INCLUDE_NSFW, PAGE_LIMIT, POST_SEARCH_FILTERS, QUERY, SUBFORUM_NAME, SUBFORUM_NAME_PATTERN } from './forum-inputs.ts';

const POST_PAGE_RESULT = page({ omittedNsfw: OMITTED_NSFW });
const POST_SEARCH_BILLING = { minimumCredits: 1, returns: { forum_post: 'data' }, rateLimitWeight: 2, maxUnits: { forum_post: 100 } } as const;

export const searchForumPosts = defineOperation({
  operationId: 'searchForumPosts',
  description:
    'Site-wide post search with filters (community, author, text or link posts, sort, time window, NSFW). Removed posts and posts of communities that are not publicly readable never appear.',
  graphql: { kind: 'query', field: 'searchForumPosts' },
  rest: { method: 'POST', path: '/v1/forum/search' },
  tool: 'search_forum_posts',
  authentication: 'key',
  scopes: ['read:forum'],
  billing: POST_SEARCH_BILLING,
  input: z.object({
    ...POST_SEARCH_FILTERS,
    subforum: z
      .string()
      .regex(new RegExp(`^(?:r/)?${SUBFORUM_NAME_PATTERN.source.slice(1, -1)}$`), 'a community name, with or without `r/`')
      .optional()
      .describe('Only posts of this community (`r/` prefix accepted).'),
  }),
  output: z.array(ForumPostShape),
  result: POST_PAGE_RESULT,
  resolve: searchPosts,
  paginated: true,
  tag: 'Forum',
  example: { query: 'forum' },
});

export const searchSubforumPosts = defineOperation({
  operationId: 'searchSubforumPosts',
  description:
    'Post search inside one community, with the same filters as site search. 404 for a nonexistent community; 404 with `details.reason` for one that is not publicly readable.',
  graphql: { kind: 'query', field: 'searchSubforumPosts' },
  rest: { method: 'POST', path: '/v1/forum/subforums/:name/search' },
  tool: 'search_subforum_posts',
  authentication: 'key',
  scopes: ['read:forum'],
  billing: POST_SEARCH_BILLING,
  input: z.object({ name: SUBFORUM_NAME, ...POST_SEARCH_FILTERS }),
  output: z.array(ForumPostShape),
  result: POST_PAGE_RESULT,
  resolve: searchInSubforum,
  paginated: true,
  tag: 'Forum',
  example: { name: 'AskForum', query: 'river' },
});

export const searchSubforums = defineOperation({
  operationId: 'searchSubforums',
  description:
    'Find communities by name or description. NSFW communities are removed unless `includeNsfw` is true and counted in `meta.omittedNsfw`; a page can be short or empty with a non-null `nextCursor`.',
  graphql: { kind: 'query', field: 'searchSubforums' },
  rest: { method: 'POST', path: '/v1/forum/search/subforums' },
  tool: 'search_subforums',
  authentication: 'key',
  scopes: ['read:forum'],
  billing: { minimumCredits: 1, returns: { subforum: 'data' }, rateLimitWeight: 2, maxUnits: { subforum: 100 } },
  input: z.object({
    query: QUERY,
    sort: z.enum(['relevance', 'activity']).default('relevance').describe('`activity` favours currently busy communities.'),
    includeNsfw: INCLUDE_NSFW,
    limit: PAGE_LIMIT,
    cursor: CURSOR,
  }),
  output: z.array(SubforumShape),
  result: page({ omittedNsfw: OMITTED_NSFW }),
  resolve: searchCommunities,
  paginated: true,
  tag: 'Forum',
  example: { query: 'programming' },
});
