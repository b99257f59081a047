import { z } from 'zod';
import { SEARCH_PATTERNS } from '../../adapters/microblog/microblog-search-builder.ts';
import { MicroblogPostShape } from '../../adapters/shapes/microblog-shapes.ts';
import { CURSOR, limit } from './microblog-inputs.ts';
import { defineOperation } from './operation.ts';
import { page } from './payload.ts';
import { searchMicroblogPosts as searchPosts } from '../../resolvers/microblog/microblog-search.ts';

const USERNAMES = (what: string) =>
  z
    .array(z.string().regex(/^@?[A-Za-z0-9_]{1,50}$/, 'a username with or without `@`'))
    .min(1)
    .max(10)
    .optional()
    .describe(what);

const DATE = (what: string) => z.string().regex(SEARCH_PATTERNS.date, 'a date YYYY-MM-DD').optional().describe(what);

const TRISTATE = (what: string) => z.boolean().optional().describe(`${what}: true keeps only such posts, false leaves them out.`);

export const searchMicroblogPosts = defineOperation({
  operationId: 'searchMicroblogPosts',
  description:
    "Post search with composable filters: free text plus structured filters that all combine with AND. Each filter is validated and written as the platform's own operator; free text cannot inject operators. At least `query` or one filter is required.",
  graphql: { kind: 'query', field: 'microblogPostSearch' },
  rest: { method: 'POST', path: '/v1/microblog/search' },
  tool: 'search_microblog_posts',
  authentication: 'key',
  scopes: ['read:microblog'],
  billing: { minimumCredits: 1, returns: { post: 'data' }, rateLimitWeight: 2, maxUnits: { post: 100 } },
  input: z.object({
    query: z
      .string()
      .min(1)
      .max(500)
      .optional()
      .describe('Free text, 1 to 500 characters: `"…"` is an exact phrase, `-word` leaves a word out; other words that look like operators are searched as words.'),
    from: USERNAMES('Posts by any of these accounts.'),
    to: USERNAMES('Replies to any of these accounts.'),
    mentions: USERNAMES('Posts mentioning all of these accounts.'),
    hashtags: z
      .array(z.string().regex(/^#?[\p{L}\p{N}_]{1,100}$/u, 'a hashtag with or without `#`'))
      .min(1)
      .max(10)
      .optional()
      .describe('Posts carrying all of these hashtags.'),
    lang: z.string().regex(SEARCH_PATTERNS.lang, 'a two- or three-letter language code').optional().describe('Language code, e.g. `en`.'),
    since: DATE('Posts from this UTC day on (inclusive).'),
    until: DATE('Posts before this UTC day (exclusive).'),
    minLikes: z.int().min(0).optional().describe('At least this many likes.'),
    minReposts: z.int().min(0).optional().describe('At least this many reposts.'),
    minReplies: z.int().min(0).optional().describe('At least this many replies.'),
    hasMedia: TRISTATE('Photos, videos or GIFs'),
    hasImages: TRISTATE('Photos'),
    hasVideos: TRISTATE('Videos or GIFs'),
    hasLinks: TRISTATE('Links'),
    replies: z.enum(['only', 'exclude']).optional().describe('`only`: replies only; `exclude`: no replies.'),
    quotes: z.enum(['only', 'exclude']).optional().describe('`only`: quote posts only; `exclude`: no quote posts.'),
    reposts: z
      .enum(['include', 'only', 'exclude'])
      .optional()
      .describe('Reposts are left out unless `include` (mixed in) or `only` (reposts only).'),
    verifiedOnly: z.boolean().optional().describe('Only posts by verified accounts.'),
    sort: z.enum(['latest', 'top']).default('latest').describe("`latest` (newest first) or `top` (the platform's ranking)."),
    limit: limit(100),
    cursor: CURSOR,
  }),
  output: z.array(MicroblogPostShape),
  result: page(),
  resolve: searchPosts,
  paginated: true,
  tag: 'Microblog',
  example: { query: 'api', from: ['simdevs'] },
});
