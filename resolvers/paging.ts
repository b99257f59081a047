import type { GraphQLResolveInfo } from 'graphql';
import { cursorState, readCursor, resolveCursorState, signCursor } from '../core/cursor.ts';
import type { Page } from '../core/page.ts';
import type { Truncation } from '../adapters/shapes/paging-shapes.ts';
import type { RequestContext } from '../core/request-context.ts';

/** What one upstream page gives: its items, and the paging state of the next page (none after the last). */
export interface UpstreamPage<T, State> {
  items: T[];
  next: State | null | undefined;
  /** Set when the platform capped or stalled the walk; it then ends on this page. */
  truncated?: Truncation | null;
}

/**
 * One page of any paginated field: the cursor in `params` is checked and decoded (bound to this field and to every
 * other parameter), the upstream page fetched from its state, and the next page's state signed into `nextCursor`
 * (stored server-side when it outgrows a cursor).
 */
export async function cursorPage<T, State>(
  ctx: RequestContext,
  info: Pick<GraphQLResolveInfo, 'parentType' | 'fieldName'>,
  params: object,
  fetch: (state: State | undefined) => Promise<UpstreamPage<T, State>>,
): Promise<Page<T>> {
  const binding = `${info.parentType.name}.${info.fieldName}`;
  const bound = { ...params } as Record<string, unknown>;
  // A root page served smaller to keep within maxCredits stays bound to the limit the client asked for.
  if (ctx.limitAsked !== undefined && info.parentType.name === 'Query') bound.limit = ctx.limitAsked;
  const state = await resolveCursorState(ctx, readCursor<State>(ctx, binding, bound));
  const page = await fetch(state);
  const truncated = page.truncated ?? null;
  const next = truncated ? null : page.next;
  return { items: page.items, nextCursor: next ? signCursor(ctx, binding, bound, await cursorState(ctx, next)) : null, truncated };
}
