import { z } from 'zod';
import { ForumCommentShape, ForumPostShape } from '../../adapters/shapes/forum-shapes.ts';
import { defineOperation } from './operation.ts';
import { CURSOR, POST_ID } from './forum-inputs.ts';
import { page } from './payload.ts';
import { getForumPost as getPost } from '../../resolvers/forum/get-forum-post.ts';
import { getForumPostComments as getComments } from '../../resolvers/forum/forum-post-comments.ts';

export const getForumPost = defineOperation({
  operationId: 'getForumPost',
  description: 'One public forum post in its current state, including lock, archive and removal (`removedByCategory`).',
  graphql: { kind: 'query', field: 'forumPost' },
  rest: { method: 'GET', path: '/v1/forum/posts/:id' },
  tool: 'get_forum_post',
  authentication: 'key',
  scopes: ['read:forum'],
  billing: { minimumCredits: 1, returns: { forum_post: 'data' }, rateLimitWeight: 1, maxUnits: { forum_post: 1 } },
  input: z.object({ id: POST_ID }),
  output: ForumPostShape,
  resolve: getPost,
  tag: 'Forum',
  example: { id: '1a00005' },
});

export const getForumPostComments = defineOperation({
  operationId: 'getForumPostComments',
  description:
    "A post's comment tree, page by page: a flat list where every comment follows its parent (`parentId` is `t3_<post>` for top-level comments, `t1_<comment>` for replies) and siblings keep the chosen sort; the platform's `more` stubs are expanded as pages advance.",
  graphql: { kind: 'query', field: 'forumPostComments' },
  rest: { method: 'GET', path: '/v1/forum/posts/:id/comments' },
  tool: 'get_forum_post_comments',
  authentication: 'key',
  scopes: ['read:forum'],
  billing: { minimumCredits: 1, returns: { forum_comment: 'data' }, rateLimitWeight: 2, maxUnits: { forum_comment: 100 } },
  input: z.object({
    id: POST_ID,
    sort: z
      .enum(['confidence', 'top', 'new', 'controversial', 'old', 'qa'])
      .default('confidence')
      .describe('The platform’s comment sort; `confidence` is its "best".'),
    depth: z.int().min(1).max(10).default(10).describe('Deepest level returned: 1 = top-level comments only.'),
    limit: z.int().min(1).max(100).default(100).describe('Comments on this page, at most.'),
    cursor: CURSOR,
  }),
  output: z.array(ForumCommentShape),
  result: page(),
  resolve: getComments,
  paginated: true,
  tag: 'Forum',
  example: { id: '1a0000c' },
});
