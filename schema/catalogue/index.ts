import type { OperationSpec } from './operation.ts';
import * as account from './account.ts';
import * as system from './system.ts';
import * as forumPosts from './forum-posts.ts';
import * as forumSearch from './forum-search.ts';
import * as forumLookup from './forum-lookup.ts';
import * as microblogUsers from './microblog-users.ts';
import * as microblogPosts from './microblog-posts.ts';
import * as microblogLists from './microblog-lists.ts';
import * as microblogSearch from './microblog-search.ts';
import * as monitors from './monitors.ts';
import * as webhooks from './webhooks.ts';

const isOperation = (value: unknown): value is OperationSpec => typeof value === 'object' && value !== null && 'operationId' in value;

/** Every operation of the service. Each domain file contributes its entries here (its other exports are not operations). */
export const OPERATIONS: readonly OperationSpec[] = [
  ...Object.values(system),
  ...Object.values(account),
  ...Object.values(forumPosts),
  ...Object.values(forumSearch),
  ...Object.values(forumLookup),
  ...Object.values(microblogUsers),
  ...Object.values(microblogPosts),
  ...Object.values(microblogLists),
  ...Object.values(microblogSearch),
  ...Object.values(monitors),
  ...Object.values(webhooks),
].filter(isOperation);

const byKey = new Map(OPERATIONS.map((op) => [`${op.graphql.kind}:${op.graphql.field}`, op]));

export function operationByField(kind: 'query' | 'mutation', field: string): OperationSpec | undefined {
  return byKey.get(`${kind}:${field}`);
}
