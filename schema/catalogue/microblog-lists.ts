import { z } from 'zod';
import { MicroblogListShape, MicroblogPostShape, MicroblogProfileShape, MicroblogSpaceShape } from '../../adapters/shapes/microblog-shapes.ts';
import { CURSOR, limit, LIST_ID, SPACE_ID } from './microblog-inputs.ts';
import { defineOperation } from './operation.ts';

const READ = ['read:microblog'] as const;
const page = { dataField: 'items', meta: ['nextCursor'], metaAlways: ['nextCursor'] } as const;

export const getMicroblogList = defineOperation({
  operationId: 'getMicroblogList',
  description: 'One public List. 404 when the List does not exist or is private.',
  graphql: { kind: 'query', field: 'microblogList', document: 'query getMicroblogList($id: String!) { microblogList(id: $id) { ...MicroblogListFields } }' },
  rest: { method: 'GET', path: '/v1/microblog/lists/:id' },
  tool: 'get_microblog_list',
  authentication: 'key',
  scopes: READ,
  billing: { minimumCredits: 1, units: ['list'], rateLimitWeight: 1, maxUnits: { list: 1 } },
  input: z.object({ id: LIST_ID }),
  output: MicroblogListShape,
  tag: 'Microblog',
  example: { id: '1500000000000000001' },
});

export const getMicroblogListMembers = defineOperation({
  operationId: 'getMicroblogListMembers',
  description: "Accounts in a List, in the platform's order. 404 when the List does not exist or is private.",
  graphql: {
    kind: 'query',
    field: 'microblogListMembers',
    document:
      'query getMicroblogListMembers($id: String!, $limit: Int, $cursor: String) { microblogListMembers(id: $id, limit: $limit, cursor: $cursor) { items { ...MicroblogProfileFields } nextCursor } }',
  },
  rest: { method: 'GET', path: '/v1/microblog/lists/:id/members' },
  tool: 'get_microblog_list_members',
  authentication: 'key',
  scopes: READ,
  billing: { minimumCredits: 1, units: ['user'], rateLimitWeight: 3, maxUnits: { user: 100 } },
  input: z.object({ id: LIST_ID, limit: limit(100), cursor: CURSOR }),
  output: z.array(MicroblogProfileShape),
  result: page,
  paginated: true,
  tag: 'Microblog',
  example: { id: '1500000000000000001' },
});

export const getMicroblogListPosts = defineOperation({
  operationId: 'getMicroblogListPosts',
  description: "Posts by a List's members, newest first. 404 when the List does not exist or is private.",
  graphql: {
    kind: 'query',
    field: 'microblogListPosts',
    document:
      'query getMicroblogListPosts($id: String!, $limit: Int, $cursor: String) { microblogListPosts(id: $id, limit: $limit, cursor: $cursor) { items { ...MicroblogPostFields } nextCursor } }',
  },
  rest: { method: 'GET', path: '/v1/microblog/lists/:id/posts' },
  tool: 'get_microblog_list_posts',
  authentication: 'key',
  scopes: READ,
  billing: { minimumCredits: 1, units: ['post'], rateLimitWeight: 2, maxUnits: { post: 100 } },
  input: z.object({ id: LIST_ID, limit: limit(100), cursor: CURSOR }),
  output: z.array(MicroblogPostShape),
  result: page,
  paginated: true,
  tag: 'Microblog',
  example: { id: '1500000000000000001' },
});

export const getMicroblogSpace = defineOperation({
  operationId: 'getMicroblogSpace',
  description:
    'One Space: state (`NotStarted` for scheduled, `Running`, `Ended`, `Canceled`, …), title, hosts and speakers, participant count, scheduled/started/ended times. 404 when it does not exist.',
  graphql: { kind: 'query', field: 'microblogSpace', document: 'query getMicroblogSpace($id: String!) { microblogSpace(id: $id) { ...MicroblogSpaceFields } }' },
  rest: { method: 'GET', path: '/v1/microblog/spaces/:id' },
  tool: 'get_microblog_space',
  authentication: 'key',
  scopes: READ,
  billing: { minimumCredits: 1, units: ['space'], rateLimitWeight: 1, maxUnits: { space: 1 } },
  input: z.object({ id: SPACE_ID }),
  output: MicroblogSpaceShape,
  tag: 'Microblog',
  example: { id: '1vOxwjaWEbdJB' },
});
