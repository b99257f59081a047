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
 * The paging state after a page cut to `limit`: the items the platform sent past the cut, still to serve, then
 * the platform's own next state (and a truncation that ends the walk once they are served).
 */
interface HeldItems<T, State> {
  held: T[];
  then: State | null;
  truncated?: Truncation;
}

function isHeld<T, State>(state: unknown): state is HeldItems<T, State> {
  return typeof state === 'object' && state !== null && Array.isArray((state as HeldItems<T, State>).held) && 'then' in state;
}

/**
 * One page of any paginated field: the cursor in `params` is checked and decoded (bound to this field and to every
 * other parameter), the upstream page fetched from its state, and the next page's state signed into `nextCursor`
 * (stored server-side when it outgrows a cursor).
 *
 * A page never holds more than `params.limit` items: platforms treat the page size as a hint (the microblog's
 * timelines, forum search) and may send more, which would be billed beyond the worst case priced on the limit. The
 * items past the cut travel in the next cursor's state and are served first, without a round trip, so a walk
 * returns every item the platform sent exactly once, in its order.
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
  const state = await resolveCursorState(ctx, readCursor<State | HeldItems<T, State>>(ctx, binding, bound));
  const page: UpstreamPage<T, State> = isHeld<T, State>(state)
    ? { items: state.held, next: state.then, truncated: state.truncated }
    : await fetch(state as State | undefined);
  const truncated = page.truncated ?? null;
  const next = truncated ? null : page.next;
  const sign = async (nextState: unknown) => signCursor(ctx, binding, bound, await cursorState(ctx, nextState));
  const limit = (params as { limit?: unknown }).limit;
  if (typeof limit === 'number' && page.items.length > limit) {
    const held: HeldItems<T, State> = { held: page.items.slice(limit), then: next ?? null, ...(truncated ? { truncated } : {}) };
    return { items: page.items.slice(0, limit), nextCursor: await sign(held), truncated: null };
  }
  return { items: page.items, nextCursor: next ? await sign(next) : null, truncated };
}
