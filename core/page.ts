import type { Truncation } from '../adapters/shapes/paging-shapes.ts';

/** One page of a paginated result as resolvers return it; `nextCursor` null is the only end. */
export interface Page<T> {
  items: T[];
  nextCursor: string | null;
  /** Set when the walk ended before the end of what the platform holds (capped or stalled). */
  truncated: Truncation | null;
}
