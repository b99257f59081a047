import { z } from 'zod';

/** Input members shared by the forum operations, with the spec's patterns and bounds. */

export const POST_ID = z
  .string()
  .regex(/^[A-Za-z0-9]{1,13}$/, 'a base-36 post id without `t3_`')
  .describe('Base-36 post id without the `t3_` prefix.');

export const SUBFORUM_NAME_PATTERN = /^(?:[A-Za-z0-9][A-Za-z0-9_]{2,20}|[A-Za-z]{2})$/;

export const SUBFORUM_NAME = z
  .string()
  .regex(SUBFORUM_NAME_PATTERN, '3 to 21 letters, digits or underscores starting with a letter or digit, or a two-letter language community')
  .describe('Community name without `r/`.');

export const CURSOR = z.string().min(1).max(4096).optional().describe('`meta.nextCursor` of the previous page, unchanged.');

export const QUERY = z.string().min(1).max(500).describe('Search terms, 1 to 500 characters; the platform’s search syntax is accepted.');

export const INCLUDE_NSFW = z.boolean().default(false).describe('Keep NSFW items; when false they are removed and counted in `meta.omittedNsfw`.');

export const PAGE_LIMIT = z.int().min(1).max(100).default(25).describe('Items asked of the platform for this page, 1 to 100.');

/** The filters of both post searches (site-wide and in one community). */
export const POST_SEARCH_FILTERS = {
  query: QUERY,
  author: z
    .string()
    .regex(/^(?:u\/)?[A-Za-z0-9_-]{3,20}$/, 'a username, with or without `u/`')
    .optional()
    .describe('Only posts by this account (`u/` prefix accepted).'),
  postType: z.enum(['any', 'self', 'link']).default('any').describe('`self`: text posts only; `link`: link posts only.'),
  sort: z.enum(['relevance', 'new', 'top', 'comments', 'hot']).default('relevance').describe('The platform’s ranking.'),
  time: z.enum(['hour', 'day', 'week', 'month', 'year', 'all']).default('all').describe('Only posts created within this window before now.'),
  includeNsfw: INCLUDE_NSFW,
  limit: PAGE_LIMIT,
  cursor: CURSOR,
};
