import type { GraphQLResolveInfo } from 'graphql';
import { cursorState, readCursor, resolveCursorState, resolveStoredState, signCursor, storedState } from '../core/cursor.ts';
import { PAGE_BOUND, type Page } from '../core/page.ts';
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
 * The paging state after a page cut to `limit`: a reference to the stored copy of the items the platform sent past
 * the cut (written once for the whole run of pages they fill, never inline: the client has not paid for them and
 * would read them from its cursor), how many of them are served already, then the platform's own next state (and a
 * truncation that ends the walk once they are all served).
 */
interface HeldItems<State> {
  held: unknown;
  at: number;
  then: State | null;
  truncated?: Truncation;
}

function isHeld<State>(state: unknown): state is HeldItems<State> {
  return typeof state === 'object' && state !== null && 'held' in state && typeof (state as HeldItems<State>).at === 'number';
}

/** The most items this page may hold: the request's `limit`, or the bound the field declares when it takes none. */
function pageLimit(info: Pick<GraphQLResolveInfo, 'parentType' | 'fieldName'>, params: object): number {
  const limit = (params as { limit?: unknown }).limit;
  if (typeof limit === 'number') return limit;
  const declared = info.parentType.getFields()[info.fieldName]?.extensions?.[PAGE_BOUND];
  return typeof declared === 'number' ? declared : Number.POSITIVE_INFINITY;
}

/**
 * One page of any paginated field: the cursor in `params` is checked and decoded (bound to this field and to every
 * other parameter), the upstream page fetched from its state, and the next page's state signed into `nextCursor`
 * (stored server-side when it outgrows a cursor).
 *
 * A page never holds more than `params.limit` items (or the field's declared bound, where the platform chooses the
 * page size and there is no `limit`): platforms treat the page size as a hint (the microblog's
 * timelines, forum search) and may send more, which would be billed beyond the worst case priced on the limit. The
 * items past the cut are stored server-side (the next cursor names them) and served first, without a round trip
 * while they fill a page, so a walk returns every item the platform sent exactly once, in its order.
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
  const sign = async (next: unknown) => signCursor(ctx, binding, bound, await cursorState(ctx, next));
  const limit = pageLimit(info, params);
  const state = await resolveCursorState(ctx, readCursor<State | HeldItems<State>>(ctx, binding, bound));
  let carried: T[] = [];
  let from = state as State | undefined;
  if (isHeld<State>(state)) {
    const held = await resolveStoredState<T[]>(ctx, state.held);
    const end = state.at + limit;
    if (end < held.length) return { items: held.slice(state.at, end), nextCursor: await sign({ ...state, at: end }), truncated: null };
    if (end === held.length || !state.then) return { items: held.slice(state.at), nextCursor: state.then ? await sign(state.then) : null, truncated: state.truncated ?? null };
    // Fewer than `limit` left and the platform has more: the page is filled from its next page and cut again, so a
    // walk's pages stay full and none pays the call's minimum for a remainder.
    carried = held.slice(state.at);
    from = state.then;
  }
  const page = await fetch(from);
  const items = [...carried, ...page.items];
  const truncated = page.truncated ?? null;
  const next = truncated ? null : page.next;
  if (items.length > limit) {
    const rest: HeldItems<State> = { held: await storedState(ctx, items.slice(limit)), at: 0, then: next ?? null, ...(truncated ? { truncated } : {}) };
    return { items: items.slice(0, limit), nextCursor: await sign(rest), truncated: null };
  }
  return { items, nextCursor: next ? await sign(next) : null, truncated };
}
