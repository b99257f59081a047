import type { SimPost, SimSubforum } from './forum-sim-records.ts';

/** The platform stops paging after this many items in a listing, and after fewer in search. */
export const LISTING_CAP = 1000;
export const SEARCH_CAP = 250;
const DEFAULT_LIMIT = 25;
const MAX_LIMIT = 100;

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

/** The platform's orders. Sort keys are computed once per post (relevance reads the whole text). */
export function sortPosts(posts: SimPost[], sort: string, relevanceOf?: (p: SimPost) => number, numComments?: (p: SimPost) => number): SimPost[] {
  const primary: (p: SimPost) => number =
    sort === 'new'
      ? (p) => p.createdUtc
      : sort === 'top'
        ? (p) => p.score
        : sort === 'hot'
          ? hotScore
          : sort === 'comments'
            ? (p) => numComments?.(p) ?? 0
            : (p) => relevanceOf?.(p) ?? 0;
  // Relevance ties fall back to votes; every order ends newest first, then by index, so it is total.
  const secondary: (p: SimPost) => number = sort === 'relevance' || !['new', 'top', 'hot', 'comments'].includes(sort) ? (p) => p.score : (p) => p.createdUtc;
  const keyed = posts.map((p) => ({ p, a: primary(p), b: secondary(p) }));
  keyed.sort((x, y) => y.a - x.a || y.b - x.b || y.p.createdUtc - x.p.createdUtc || y.p.index - x.p.index);
  return keyed.map((k) => k.p);
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

/** Lower-cased title and body, cached per post and rebuilt when an edit replaces either string. */
const textCache = new WeakMap<SimPost, { title: string; selftext: string; titleLower: string; bodyLower: string }>();

function searchText(post: SimPost): { titleLower: string; bodyLower: string } {
  let cached = textCache.get(post);
  if (!cached || cached.title !== post.title || cached.selftext !== post.selftext) {
    cached = { title: post.title, selftext: post.selftext, titleLower: post.title.toLowerCase(), bodyLower: post.selftext.toLowerCase() };
    textCache.set(post, cached);
  }
  return cached;
}

export function postMatches(post: SimPost, query: ParsedQuery): boolean {
  if (query.author && post.author.toLowerCase() !== query.author) return false;
  if (query.subforum && post.subforum.toLowerCase() !== query.subforum) return false;
  const isSelf = post.kind === 'self' || post.kind === 'poll';
  if (query.self !== undefined && isSelf !== query.self) return false;
  if (query.nsfw !== undefined && post.over18 !== query.nsfw) return false;
  const { titleLower, bodyLower } = searchText(post);
  if (!query.titleTerms.every((t) => titleLower.includes(t))) return false;
  if (!query.terms.every((t) => titleLower.includes(t) || bodyLower.includes(t))) return false;
  return !query.site || (post.linkUrl !== null && hostOf(post.linkUrl).includes(query.site));
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '';
  }
}

export function postRelevance(post: SimPost, query: ParsedQuery): number {
  const { titleLower, bodyLower } = searchText(post);
  let score = 0;
  for (const t of query.terms) score += (titleLower.includes(t) ? 3 : 0) + (bodyLower.includes(t) ? 1 : 0);
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
