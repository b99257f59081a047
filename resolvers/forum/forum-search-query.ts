/**
 * Builds the platform's search string from the service's validated filters. Filters become the platform's
 * own field operators, so a filter can never be mistaken for a search term.
 */
export interface PostSearchFilters {
  query: string;
  author?: string;
  subforum?: string;
  postType?: 'any' | 'self' | 'link';
}

export function platformSearchQuery(filters: PostSearchFilters): string {
  const parts = [filters.query.trim()];
  if (filters.author) parts.push(`author:${filters.author}`);
  if (filters.subforum) parts.push(`subreddit:${filters.subforum}`);
  if (filters.postType === 'self') parts.push('self:yes');
  if (filters.postType === 'link') parts.push('self:no');
  return parts.join(' ');
}

/** Removes NSFW items unless asked for, counting them for `meta.omittedNsfw`. */
export function omitNsfw<T extends { over18: boolean }>(items: T[], includeNsfw: boolean): { items: T[]; omitted: number } {
  if (includeNsfw) return { items, omitted: 0 };
  const kept = items.filter((item) => !item.over18);
  return { items: kept, omitted: items.length - kept.length };
}
