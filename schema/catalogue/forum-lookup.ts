import { z } from 'zod';
import { ForumCommentShape, ForumPostShape, SubforumShape } from '../../adapters/shapes/forum-shapes.ts';
import { lookupForum as lookup } from '../../resolvers/forum/lookup-forum.ts';
import { getSubforum as getCommunity } from '../../resolvers/forum/get-subforum.ts';
import { MISSING } from './payload.ts';
import { defineOperation } from './operation.ts';
import { SUBFORUM_NAME } from './forum-inputs.ts';

/** Entries are ids, fullnames, names or URLs; 2048 characters covers any URL the platform serves. */
const ENTRY = z.string().min(1).max(2048);

const ForumLookupDataShape = z
  .object({
    posts: z.array(ForumPostShape).describe('Posts found, in request order.'),
    comments: z.array(ForumCommentShape).describe('Comments found, in request order.'),
    subforums: z.array(SubforumShape).describe('Publicly readable communities found, in request order.'),
  })
  .describe('Current state of the items asked for.');

export const lookupForum = defineOperation({
  operationId: 'lookupForum',
  description:
    'Current state of known items in one call: up to 100 posts and comments together and 100 communities. Posts by id, `t3_` fullname, post URL or short link; comments by id, `t1_` fullname or permalink; communities by name, `r/name` or URL. Share links (`/s/…`) carry no id and are refused. Not NSFW-filtered; `meta.missing` lists what was not returned (not billed).',
  graphql: { kind: 'query', field: 'lookupForum' },
  rest: { method: 'POST', path: '/v1/forum/lookup' },
  tool: 'lookup_forum',
  authentication: 'key',
  scopes: ['read:forum'],
  billing: {
    minimumCredits: 1,
    returns: { forum_post: 'posts', forum_comment: 'comments', subforum: 'subforums' },
    rateLimitWeight: 2,
    maxUnits: { forum_post: 100, forum_comment: 100, subforum: 100 },
    unitsAsked: (args) => ({ forum_post: lengthOf(args.posts), forum_comment: lengthOf(args.comments), subforum: lengthOf(args.subforums) }),
  },
  input: z.object({
    posts: z.array(ENTRY).max(100).optional().describe('Post ids, `t3_` fullnames, post URLs or short links; with `comments`, at most 100 entries.'),
    comments: z.array(ENTRY).max(100).optional().describe('Comment ids, `t1_` fullnames or permalinks; with `posts`, at most 100 entries.'),
    subforums: z.array(ENTRY).max(100).optional().describe('Community names, `r/name` or community URLs; at most 100.'),
  }),
  output: ForumLookupDataShape,
  result: { name: 'ForumLookup', description: 'Result of a forum lookup.', meta: { missing: MISSING }, metaAlways: ['missing'] },
  resolve: lookup,
  tag: 'Forum',
  example: { posts: ['1a00005', 't3_1a00006'], comments: ['t1_g001udf'], subforums: ['r/programming', 'secretclub'] },
});

export const getSubforum = defineOperation({
  operationId: 'getSubforum',
  description:
    'Community metadata. 404 for a nonexistent community; 404 with `details.reason` (private, banned, quarantined, gold_only…) for one that is not publicly readable.',
  graphql: { kind: 'query', field: 'subforum' },
  rest: { method: 'GET', path: '/v1/forum/subforums/:name' },
  tool: 'get_subforum',
  authentication: 'key',
  scopes: ['read:forum'],
  billing: { minimumCredits: 1, returns: { subforum: 'data' }, rateLimitWeight: 1, maxUnits: { subforum: 1 } },
  input: z.object({ name: SUBFORUM_NAME }),
  output: SubforumShape,
  resolve: getCommunity,
  tag: 'Forum',
  example: { name: 'programming' },
});

function lengthOf(entries: unknown): number {
  return Array.isArray(entries) ? entries.length : 0;
}
