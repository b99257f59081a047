/** One page of a paginated result as resolvers return it; `nextCursor` null is the only end. */
export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}
