/**
 * Structured post-search filters → the platform's raw query string. Every structured value is validated against a
 * strict pattern before it is written as an operator, and free text is neutralised (operator-looking words are
 * quoted), so no filter value can inject another operator. Terms combine with AND, as the platform reads them.
 */
export interface PostSearchFilters {
  text?: string;
  from?: string[];
  to?: string[];
  mentions?: string[];
  hashtags?: string[];
  lang?: string;
  /** YYYY-MM-DD, inclusive. */
  since?: string;
  /** YYYY-MM-DD, exclusive. */
  until?: string;
  minLikes?: number;
  minReposts?: number;
  minReplies?: number;
  hasMedia?: boolean;
  hasImages?: boolean;
  hasVideos?: boolean;
  hasLinks?: boolean;
  /** `only`: replies only; `exclude`: no replies. */
  replies?: 'only' | 'exclude';
  quotes?: 'only' | 'exclude';
  /** Reposts are left out by default; `include` adds them, `only` keeps nothing else. */
  reposts?: 'include' | 'only' | 'exclude';
  verifiedOnly?: boolean;
}

export const SEARCH_PATTERNS = {
  username: /^[A-Za-z0-9_]{1,50}$/,
  hashtag: /^[\p{L}\p{N}_]{1,100}$/u,
  lang: /^[a-z]{2,3}$/,
  date: /^\d{4}-\d{2}-\d{2}$/,
};

/**
 * The platform rejects raw queries longer than this (SearchTimeline-error-query-too-long.json). The recording does
 * not say what it counts, so the check counts UTF-16 units, as `query`'s own bound does: never fewer than code
 * points, so no query the check lets through is refused for its length whichever the platform counts.
 */
export const MAX_RAW_QUERY_LENGTH = 512;

export class SearchFilterError extends Error {
  readonly field: string;
  constructor(field: string, message: string) {
    super(message);
    this.name = 'SearchFilterError';
    this.field = field;
  }
}

function check(field: string, value: string, pattern: RegExp): string {
  if (!pattern.test(value)) throw new SearchFilterError(field, `${field}: ${JSON.stringify(value)} is not allowed`);
  return value;
}

function operatorLike(word: string): boolean {
  return word.includes(':') || /^[-@#(]/.test(word) || /[()]/.test(word) || word === 'OR' || word === 'AND';
}

/**
 * Free text, read as people type it into the platform's search box: a balanced `"…"` is one exact phrase, a
 * leading `-` leaves out posts with the word or phrase that follows. Anything else that would read as an
 * operator (`from:x`, `-filter:x`, `@x`, `#x`, `OR`, parentheses) is quoted, so free text never adds a filter;
 * inside a phrase every character is literal. A quote left without its pair is dropped.
 */
function freeText(text: string): string[] {
  const terms: string[] = [];
  for (const [, minus, phrase, word] of text.replace(/[“”]/g, '"').matchAll(/(-?)"([^"]*)"|([^\s"]+)/g)) {
    if (phrase !== undefined) {
      const words = phrase.trim().split(/\s+/).join(' ');
      if (words !== '') terms.push(`${minus}"${words}"`);
    } else if (word.startsWith('-') && word.length > 1 && !operatorLike(word.slice(1))) {
      terms.push(word);
    } else {
      terms.push(operatorLike(word) ? `"${word}"` : word);
    }
  }
  return terms;
}

/** A real calendar day: `Date` would roll 2026-02-30 over to March 2 instead of refusing it. */
function isDate(field: string, value: string): string {
  check(field, value, SEARCH_PATTERNS.date);
  const day = new Date(`${value}T00:00:00Z`);
  if (Number.isNaN(day.getTime()) || day.toISOString().slice(0, 10) !== value) {
    throw new SearchFilterError(field, `${field}: ${value} is not a calendar date`);
  }
  return value;
}

export function buildSearchQuery(f: PostSearchFilters): string {
  const terms: string[] = [...freeText(f.text ?? '')];
  for (const u of f.from ?? []) terms.push(`from:${check('from', u.replace(/^@/, ''), SEARCH_PATTERNS.username)}`);
  for (const u of f.to ?? []) terms.push(`to:${check('to', u.replace(/^@/, ''), SEARCH_PATTERNS.username)}`);
  for (const u of f.mentions ?? []) terms.push(`@${check('mentions', u.replace(/^@/, ''), SEARCH_PATTERNS.username)}`);
  for (const h of f.hashtags ?? []) terms.push(`#${check('hashtags', h.replace(/^#/, ''), SEARCH_PATTERNS.hashtag)}`);
  if (f.lang !== undefined) terms.push(`lang:${check('lang', f.lang, SEARCH_PATTERNS.lang)}`);
  if (f.since !== undefined) terms.push(`since:${isDate('since', f.since)}`);
  if (f.until !== undefined) terms.push(`until:${isDate('until', f.until)}`);
  const minimum = (field: string, op: string, n: number | undefined) => {
    if (n === undefined) return;
    if (!Number.isInteger(n) || n < 0) throw new SearchFilterError(field, `${field} must be a non-negative integer`);
    terms.push(`${op}:${n}`);
  };
  minimum('minLikes', 'min_faves', f.minLikes);
  minimum('minReposts', 'min_retweets', f.minReposts);
  minimum('minReplies', 'min_replies', f.minReplies);
  const flag = (on: boolean | undefined, filter: string) => {
    if (on === true) terms.push(`filter:${filter}`);
    else if (on === false) terms.push(`-filter:${filter}`);
  };
  flag(f.hasMedia, 'media');
  flag(f.hasImages, 'images');
  flag(f.hasVideos, 'videos');
  flag(f.hasLinks, 'links');
  if (f.replies === 'only') terms.push('filter:replies');
  if (f.replies === 'exclude') terms.push('-filter:replies');
  if (f.quotes === 'only') terms.push('filter:quote');
  if (f.quotes === 'exclude') terms.push('-filter:quote');
  if (f.reposts === 'include') terms.push('include:nativeretweets');
  if (f.reposts === 'only') terms.push('filter:nativeretweets');
  if (f.reposts === 'exclude') terms.push('-filter:nativeretweets');
  if (f.verifiedOnly) terms.push('filter:blue_verified');
  const query = terms.join(' ');
  if (query === '') throw new SearchFilterError('text', 'give free text or at least one filter');
  if (query.length > MAX_RAW_QUERY_LENGTH) {
    throw new SearchFilterError('text', `the search is longer than the platform's ${MAX_RAW_QUERY_LENGTH} characters`);
  }
  return query;
}
