import { z } from 'zod';
import { MicroblogListShape, MicroblogPostShape, MicroblogProfileShape, MicroblogSpaceShape } from '../../adapters/shapes/microblog-shapes.ts';
import { CURSOR, limit, LIST_ID, SPACE_ID } from './microblog-inputs.ts';
import { defineOperation } from './operation.ts';
import { page } from './payload.ts';
import * as lists from '../../resolvers/microblog/microblog-lists.ts';

const READ = ['read:microblog'] as const;

export const getMicroblogList = defineOperation({
  operationId: 'getMicroblogList',
  description: 'One public List. 404 when the List does not exist or is private.',
  graphql: { kind: 'query', field: 'microblogList' },
  rest: { method: 'GET', path: '/v1/microblog/lists/:id' },
  tool: 'get_microblog_list',
  authentication: 'key',
  scopes: READ,
  billing: { minimumCredits: 1, returns: { list: 'data' }, rateLimitWeight: 1, maxUnits: { list: 1 } },
  input: z.object({ id: LIST_ID }),
  output: MicroblogListShape,
  resolve: lists.getMicroblogList,
  tag: 'Microblog',
  example: { id: '1500000000000000001' },
});

export const getMicroblogListMembers = defineOperation({
  operationId: 'getMicroblogListMembers',
  description: "Accounts in a List, in the platform's order. 404 when the List does not exist or is private.",
  graphql: { kind: 'query', field: 'microblogListMembers' },
  rest: { method: 'GET', path: '/v1/microblog/lists/:id/members' },
  tool: 'get_microblog_list_members',
  authentication: 'key',
  scopes: READ,
  billing: { minimumCredits: 1, returns: { user: 'data' }, rateLimitWeight: 3, maxUnits: { user: 100 } },
  input: z.object({ id: LIST_ID, limit: limit(100), cursor: CURSOR }),
  output: z.array(MicroblogProfileShape),
  result: page(),
  resolve: lists.getMicroblogListMembers,
  paginated: true,
  tag: 'Microblog',
  example: { id: '1500000000000000001' },
});

export const getMicroblogListPosts = defineOperation({
  operationId: 'getMicroblogListPosts',
  description: "Posts by a List's members, newest first. 404 when the List does not exist or is private.",
  graphql: { kind: 'query', field: 'microblogListPosts' },
  rest: { method: 'GET', path: '/v1/microblog/lists/:id/posts' },
  tool: 'get_microblog_list_posts',
  authentication: 'key',
  scopes: READ,
  billing: { minimumCredits: 1, returns: { post: 'data' }, rateLimitWeight: 2, maxUnits: { post: 100 } },
  input: z.object({ id: LIST_ID, limit: limit(100), cursor: CURSOR }),
  output: z.array(MicroblogPostShape),
  result: page(),
  resolve: lists.getMicroblogListPosts,
  paginated: true,
  tag: 'Microblog',
  example: { id: '1500000000000000001' },
});

export const getMicroblogSpace = defineOperation({
  operationId: 'getMicroblogSpace',
  description:
    'One Space: state (`NotStarted` for scheduled, `Running`, `Ended`, `Canceled`, …), title, hosts and speakers, participant count, scheduled/started/ended times. 404 when it does not exist.',
  graphql: { kind: 'query', field: 'microblogSpace' },
  rest: { method: 'GET', path: '/v1/microblog/spaces/:id' },
  tool: 'get_microblog_space',
  authentication: 'key',
  scopes: READ,
  billing: { minimumCredits: 1, returns: { space: 'data' }, rateLimitWeight: 1, maxUnits: { space: 1 } },
  input: z.object({ id: SPACE_ID }),
  output: MicroblogSpaceShape,
  resolve: lists.getMicroblogSpace,
  tag: 'Microblog',
  example: { id: '1vOxwjaWEbdJB' },
});
