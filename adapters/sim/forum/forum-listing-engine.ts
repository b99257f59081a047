import type { SimPost, SimSubforum } from './forum-sim-records.ts';

/** The platform stops paging after this many items in a listing, and after fewer in search. */
export const LISTING_CAP = 1000;
export const SEARCH_CAP = 250;
export const DEFAULT_LIMIT = 25;
export const MAX_LIMIT = 100;

export interface Page<T> {
  items: T[];
  after: string | null;
}

/** Cuts one page out of an ordered result: `after` is the fullname of the last item already seen. */
export function pageOf<T>(ordered: T[], fullname: (item: T) => string, after: string | null, limit: number, cap: number): Page<T> {
  const capped = ordered.length > cap ? ordered.slice(0, cap) : ordered;
  let start = 0;
  if (after) {
    const at = capped.findIndex((item) => fullname(item) === after);
    // An unknown `after` yields an empty page, as the platform does.
    if (at < 0) return { items: [], after: null };
    start = at + 1;
  }
  const items = capped.slice(start, start + limit);
  const more = start + limit < capped.length;
  return { items, after: more && items.length > 0 ? fullname(items[items.length - 1]) : null };
}

export function clampLimit(raw: string | null): number {
  const n = Number(raw ?? DEFAULT_LIMIT);
  return Number.isFinite(n) ? Math.min(MAX_LIMIT, Math.max(1, Math.floor(n))) : DEFAULT_LIMIT;
}

const WINDOWS: Record<string, number> = { hour: 3600, day: 86_400, week: 604_800, month: 2_592_000, year: 31_536_000 };

export function withinWindow(createdUtc: number, t: string | null, now: number): boolean {
  const span = t ? WINDOWS[t] : undefined;
  return span === undefined || createdUtc >= now - span;
}

/** The platform's "hot": log-scaled votes plus recency. */
function hotScore(post: SimPost): number {
  const order = Math.log10(Math.max(Math.abs(post.score), 1));
  return Math.sign(post.score) * order + (post.createdUtc - 1134028003) / 45000;
}

export function sortPosts(posts: SimPost[], sort: string, relevance?: (p: SimPost) => number, numComments?: (p: SimPost) => number): SimPost[] {
  const byNew = (a: SimPost, b: SimPost) => b.createdUtc - a.createdUtc || b.index - a.index;
  const compare: Record<string, (a: SimPost, b: SimPost) => number> = {
    new: byNew,
    top: (a, b) => b.score - a.score || byNew(a, b),
    hot: (a, b) => hotScore(b) - hotScore(a) || byNew(a, b),
    comments: (a, b) => (numComments ? numComments(b) - numComments(a) : 0) || byNew(a, b),
    relevance: (a, b) => (relevance ? relevance(b) - relevance(a) : 0) || b.score - a.score || byNew(a, b),
  };
  return posts.sort(compare[sort] ?? compare.relevance);
}

export interface ParsedQuery {
  terms: string[];
  author?: string;
  subforum?: string;
  self?: boolean;
  nsfw?: boolean;
  site?: string;
  titleTerms: string[];
}

/** The platform's search syntax, the part clients use: plain terms, `"phrases"`, and field operators. */
export function parseQuery(q: string): ParsedQuery {
  const parsed: ParsedQuery = { terms: [], titleTerms: [] };
  const tokens = q.match(/"[^"]*"|\S+/g) ?? [];
  for (const raw of tokens) {
    const token = raw.replace(/^"|"$/g, '').toLowerCase();
    const colon = token.indexOf(':');
    const field = colon > 0 ? token.slice(0, colon) : '';
    const value = colon > 0 ? token.slice(colon + 1) : token;
    if (field === 'author') parsed.author = value;
    else if (field === 'subreddit') parsed.subforum = value;
    else if (field === 'self') parsed.self = value === 'yes' || value === 'true' || value === '1';
    else if (field === 'nsfw') parsed.nsfw = value === 'yes' || value === 'true' || value === '1';
    else if (field === 'site' || field === 'url') parsed.site = value;
    else if (field === 'title') parsed.titleTerms.push(value);
    else if (token.length > 0) parsed.terms.push(token);
  }
  return parsed;
}

export function postMatches(post: SimPost, query: ParsedQuery, linkHost: string | null): boolean {
  if (query.author && post.author.toLowerCase() !== query.author) return false;
  if (query.subforum && post.subforum.toLowerCase() !== query.subforum) return false;
  const isSelf = post.kind === 'self' || post.kind === 'poll';
  if (query.self !== undefined && isSelf !== query.self) return false;
  if (query.nsfw !== undefined && post.over18 !== query.nsfw) return false;
  if (query.site && !(linkHost ?? '').includes(query.site)) return false;
  const titleLower = post.title.toLowerCase();
  if (!query.titleTerms.every((t) => titleLower.includes(t))) return false;
  if (query.terms.length === 0) return true;
  const text = `${titleLower} ${post.selftext.toLowerCase()}`;
  return query.terms.every((t) => text.includes(t));
}

export function postRelevance(post: SimPost, query: ParsedQuery): number {
  const titleLower = post.title.toLowerCase();
  const body = post.selftext.toLowerCase();
  let score = 0;
  for (const t of query.terms) score += (titleLower.includes(t) ? 3 : 0) + (body.includes(t) ? 1 : 0);
  return score;
}

export function subforumRelevance(sub: SimSubforum, terms: string[]): number {
  const name = sub.name.toLowerCase();
  const title = sub.title.toLowerCase();
  const description = sub.description.toLowerCase();
  let score = 0;
  for (const t of terms) {
    if (name === t) score += 100;
    else if (name.includes(t)) score += 50;
    if (title.includes(t)) score += 10;
    if (description.includes(t)) score += 5;
  }
  return score;
}
