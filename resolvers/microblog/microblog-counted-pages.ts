import type { Page as PlatformPage } from '../../adapters/microblog/microblog-client.ts';
import { capped } from '../../adapters/shapes/paging-shapes.ts';
import type { UpstreamPage } from '../paging.ts';

/** Where a walk over a list the platform counts stands: accounts returned, accounts listed but left out, the count. */
export interface CountedState {
  n?: number;
  o?: number;
  t?: number;
}

/**
 * A page of a list (followers, following, List members; or one not counted, `total` undefined) and where the walk
 * goes next. The walk ends where the platform ends it, never on its count alone: the count can lag the list or
 * leave out accounts it still lists (the platform's own counts and listings disagree, Retweeters.json), and ending
 * on it would silently lose the accounts past it. Where the client is walking (`lookAhead`: a root page, or one read
 * from a cursor) the page that reaches the count also reads the platform's next page, which normally comes back
 * empty and ends the walk there, so no billed empty page follows; if it holds more, they are returned and the walk
 * goes on. A walk edge's first page does not read ahead (one more platform request per edge, for a cursor the client
 * may never follow): it keeps the platform's cursor. A list the platform ends short of its count is `platform_cap`;
 * accounts it lists as unavailable, which the page leaves out, count toward it as the platform's counts do.
 */
export async function countedPage<T>(
  read: (cursor: string) => Promise<PlatformPage<T>>,
  first: PlatformPage<T>,
  state: CountedState | undefined,
  total: number | undefined,
  lookAhead: boolean,
): Promise<UpstreamPage<T, { c: string } & CountedState>> {
  const before = (state?.n ?? 0) + (state?.o ?? 0);
  let page = first;
  let items = first.items;
  let seen = (state?.n ?? 0) + first.items.length;
  let leftOut = (state?.o ?? 0) + (first.leftOut ?? 0);
  if (lookAhead && total !== undefined && page.next && !page.truncated && before < total && seen + leftOut >= total) {
    page = await read(page.next);
    items = [...items, ...page.items];
    seen += page.items.length;
    leftOut += page.leftOut ?? 0;
  }
  if (page.truncated) return { items, next: null, truncated: { ...page.truncated, seen, expected: total ?? null } };
  if (!page.next && total !== undefined && seen + leftOut < total) return { items, next: null, truncated: capped(seen, total) };
  if (!page.next) return { items, next: null };
  return { items, next: { c: page.next, ...(total === undefined ? {} : { n: seen, ...(leftOut ? { o: leftOut } : {}), t: total }) } };
}
