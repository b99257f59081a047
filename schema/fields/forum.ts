import { getForumPost as getForumPostResolver } from '../../resolvers/forum/get-forum-post.ts';
import { getForumPostComments as getForumPostCommentsResolver } from '../../resolvers/forum/forum-post-comments.ts';
import { getSubforum as getSubforumResolver } from '../../resolvers/forum/get-subforum.ts';
import { lookupForum as lookupForumResolver } from '../../resolvers/forum/lookup-forum.ts';
import { searchForumPosts as searchForumPostsResolver, searchSubforumPosts as searchSubforumPostsResolver } from '../../resolvers/forum/search-forum-posts.ts';
import { searchSubforums as searchSubforumsResolver } from '../../resolvers/forum/search-subforums.ts';
import { getForumPost, getForumPostComments } from '../catalogue/forum-posts.ts';
import { getSubforum, lookupForum } from '../catalogue/forum-lookup.ts';
import { searchForumPosts, searchSubforumPosts, searchSubforums } from '../catalogue/forum-search.ts';
import { operationField } from '../operation-field.ts';
import { ForumCommentPageType, ForumLookupType, ForumPostPageType, ForumPostType, SubforumPageType, SubforumType } from '../types/forum-resources.ts';

operationField(getForumPost, ForumPostType, (args, ctx, info) => getForumPostResolver(args, ctx, info));
operationField(getForumPostComments, ForumCommentPageType, (args, ctx, info) => getForumPostCommentsResolver(args, ctx, info));
operationField(searchForumPosts, ForumPostPageType, (args, ctx, info) => searchForumPostsResolver(args, ctx, info));
operationField(searchSubforumPosts, ForumPostPageType, (args, ctx, info) => searchSubforumPostsResolver(args, ctx, info));
operationField(searchSubforums, SubforumPageType, (args, ctx, info) => searchSubforumsResolver(args, ctx, info));
operationField(lookupForum, ForumLookupType, (args, ctx, info) => lookupForumResolver(args, ctx, info));
operationField(getSubforum, SubforumType, (args, ctx, info) => getSubforumResolver(args, ctx, info));
