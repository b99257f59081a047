import type { Truncation } from '../adapters/shapes/paging-shapes.ts';

/** One page of a paginated result as resolvers return it; `nextCursor` null is the only end. */
export interface Page<T> {
  items: T[];
  nextCursor: string | null;
  /** Set when the walk ended before the end of what the platform holds (capped or stalled). */
  truncated: Truncation | null;
}

/**
 * The GraphQL field extension in which a paginated field without a `limit` argument declares the most items one of
 * its pages may hold (the catalogue's bound, the one its worst case is priced on): the platform chooses those pages'
 * size, and a page is cut there as at a `limit`.
 */
export const PAGE_BOUND = 'pageBound';
