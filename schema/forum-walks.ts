import { ForumCommentShape, ForumPostShape, SubforumShape, type ForumComment, type ForumPost, type Subforum } from '../adapters/shapes/forum-shapes.ts';
import * as walks from '../resolvers/forum/forum-walks.ts';
import { getSubforum, lookupForum } from './catalogue/forum-lookup.ts';
import { getForumPost, getForumPostComments } from './catalogue/forum-posts.ts';
import { searchSubforumPosts } from './catalogue/forum-search.ts';
import { walkEdge } from './walk-edge.ts';
import { objectTypeFromZod } from './zod-graphql.ts';

/** The forum's graph: edges a query walks between posts, comments and communities (GraphQL only). */

const ForumPostType = objectTypeFromZod<ForumPost>('ForumPost', ForumPostShape);
const ForumCommentType = objectTypeFromZod<ForumComment>('ForumComment', ForumCommentShape);
const SubforumType = objectTypeFromZod<Subforum>('Subforum', SubforumShape);

walkEdge(ForumPostType, 'community', {
  op: getSubforum,
  fromParent: ['name'],
  description: "The post's community, batched with every other community of the request (one round trip per 100). Null when it is not publicly readable.",
  resolve: (post, _args, ctx) => walks.postCommunity(post, ctx),
});

walkEdge(ForumPostType, 'comments', {
  op: getForumPostComments,
  fromParent: ['id'],
  description: "The post's comment tree, page by page, as `forumPostComments` returns it.",
  resolve: (post, args, ctx, info) => walks.postComments(post, args as never, ctx, info),
});

walkEdge(ForumCommentType, 'post', {
  op: getForumPost,
  fromParent: ['id'],
  description: 'The post this comment is under, batched with every other post and comment of the request. Null when the platform no longer returns it.',
  resolve: (comment, _args, ctx) => walks.commentPost(comment, ctx),
});

walkEdge(ForumCommentType, 'parent', {
  op: lookupForum,
  fromParent: ['posts', 'comments', 'subforums'],
  returns: { shape: ForumCommentShape, units: { forum_comment: 'data' }, asked: { comments: ['parent'] } },
  description: 'The comment this one replies to, batched with every other post and comment of the request. Null for a top-level comment (its parent is the post: `post`) or one the platform no longer returns.',
  resolve: (comment, _args, ctx) => walks.commentParent(comment, ctx),
});

walkEdge(SubforumType, 'posts', {
  op: searchSubforumPosts,
  fromParent: ['name'],
  description: 'Posts of this community matching a search, with the filters of `searchSubforumPosts`.',
  resolve: (community, args, ctx, info) => walks.communityPosts(community, args as never, ctx, info),
});
