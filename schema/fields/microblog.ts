import { getMicroblogList, getMicroblogListMembers, getMicroblogListPosts, getMicroblogSpace } from '../catalogue/microblog-lists.ts';
import * as posts from '../catalogue/microblog-posts.ts';
import { searchMicroblogPosts } from '../catalogue/microblog-search.ts';
import * as users from '../catalogue/microblog-users.ts';
import { operationField } from '../operation-field.ts';
import * as lists from '../../resolvers/microblog/microblog-lists.ts';
import * as postResolvers from '../../resolvers/microblog/microblog-posts.ts';
import { searchMicroblogPosts as searchPosts } from '../../resolvers/microblog/microblog-search.ts';
import * as userResolvers from '../../resolvers/microblog/microblog-users.ts';
import { userListPage, userTimelinePage } from '../../resolvers/microblog/microblog-account-pages.ts';
import {
  AboutDetailsType,
  ArticleType,
  MicroblogEditHistoryType,
  MicroblogListType,
  MicroblogPostLookupType,
  MicroblogPostPageType,
  MicroblogPostType,
  MicroblogProfileLookupType,
  MicroblogProfilePageType,
  MicroblogProfileType,
  MicroblogSpaceType,
} from '../types/microblog-resources.ts';
import '../types/microblog-walks.ts';

operationField(users.searchMicroblogUsers, MicroblogProfilePageType, userResolvers.searchMicroblogUsers);
operationField(users.getMicroblogUser, MicroblogProfileType, userResolvers.getMicroblogUser);
operationField(users.getMicroblogUsers, MicroblogProfileLookupType, userResolvers.getMicroblogUsers);
operationField(users.getMicroblogUserAbout, AboutDetailsType, userResolvers.getMicroblogUserAbout);
operationField(users.getMicroblogUserHighlights, MicroblogPostPageType, userTimelinePage('getMicroblogUserHighlights', 'highlights'));
operationField(users.getMicroblogUserPosts, MicroblogPostPageType, userTimelinePage('getMicroblogUserPosts', 'posts'));
operationField(users.getMicroblogUserPostsAndReplies, MicroblogPostPageType, userTimelinePage('getMicroblogUserPostsAndReplies', 'replies'));
operationField(users.getMicroblogUserMedia, MicroblogPostPageType, userTimelinePage('getMicroblogUserMedia', 'media'));
operationField(users.getMicroblogUserAffiliates, MicroblogProfilePageType, userListPage('getMicroblogUserAffiliates', 'affiliates'));
operationField(users.getMicroblogUserFollowers, MicroblogProfilePageType, userListPage('getMicroblogUserFollowers', 'followers'));
operationField(users.getMicroblogUserFollowing, MicroblogProfilePageType, userListPage('getMicroblogUserFollowing', 'following'));

operationField(posts.getMicroblogPosts, MicroblogPostLookupType, postResolvers.getMicroblogPosts);
operationField(posts.getMicroblogPost, MicroblogPostType, postResolvers.getMicroblogPost);
operationField(posts.getMicroblogReplies, MicroblogPostPageType, postResolvers.getMicroblogReplies);
operationField(posts.getMicroblogThread, [MicroblogPostType], postResolvers.getMicroblogThread);
operationField(posts.getMicroblogReposters, MicroblogProfilePageType, postResolvers.getMicroblogReposters);
operationField(posts.getMicroblogArticle, ArticleType, postResolvers.getMicroblogArticle);
operationField(posts.getMicroblogQuotes, MicroblogPostPageType, postResolvers.getMicroblogQuotes);
operationField(posts.getMicroblogPostEdits, MicroblogEditHistoryType, postResolvers.getMicroblogPostEdits);

operationField(getMicroblogList, MicroblogListType, lists.getMicroblogList);
operationField(getMicroblogListMembers, MicroblogProfilePageType, lists.getMicroblogListMembers);
operationField(getMicroblogListPosts, MicroblogPostPageType, lists.getMicroblogListPosts);
operationField(getMicroblogSpace, MicroblogSpaceType, lists.getMicroblogSpace);

operationField(searchMicroblogPosts, MicroblogPostPageType, searchPosts);
