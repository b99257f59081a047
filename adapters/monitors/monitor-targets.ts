import { z } from 'zod';
import { distinctList } from '../shapes/distinct-list.ts';
import { parseKeywords, satisfiable } from './keyword-query.ts';

/**
 * The seven things a monitor can watch. Identifiers are normalised as they are read: a pasted URL, an `r/` or `u/`
 * prefix, an `@` handle, a `t3_` fullname all become the bare identifier the platforms take.
 */

export const MONITOR_SOURCES = ['forum', 'microblog'] as const;
export type MonitorSource = (typeof MONITOR_SOURCES)[number];

const KEYWORDS = z
  .string()
  .trim()
  .min(1)
  .max(500)
  .refine((keywords) => satisfiable(parseKeywords(keywords)), 'can never match: a word or phrase both required and excluded (`python -python`, `python -py`)')
  .describe('Words that must all appear; `"quoted phrases"` match as written; `-word` or `-"phrase"` excludes. Case is ignored.');

function pathOf(value: string): string | undefined {
  try {
    const url = new URL(/^[a-z]+:\/\//i.test(value) ? value : `https://${value}`);
    return /\./.test(url.hostname) ? url.pathname : undefined;
  } catch {
    return undefined;
  }
}

/** `programming`, `r/programming`, `/r/programming/`, `https://www.reddit.com/r/programming/new` → `programming`. */
export function normaliseSubforum(value: string): string {
  const path = pathOf(value) ?? value;
  return /(?:^|\/)r\/([A-Za-z0-9_]+)/.exec(path)?.[1] ?? value.replace(/^\/?r\//, '').replace(/\/$/, '');
}

/** `someone`, `u/someone`, `/user/someone`, a profile URL → `someone`. */
export function normaliseForumUser(value: string): string {
  const path = pathOf(value) ?? value;
  return /(?:^|\/)(?:u|user)\/([A-Za-z0-9_-]+)/.exec(path)?.[1] ?? value.replace(/^\/?u\//, '');
}

/** `abc123`, `t3_abc123`, `/r/x/comments/abc123/title/`, a post URL or `redd.it/abc123` → `abc123`. */
export function normaliseForumPost(value: string): string {
  const path = pathOf(value);
  if (path) return (/\/comments\/([A-Za-z0-9]+)/.exec(path)?.[1] ?? /^\/([A-Za-z0-9]+)\/?$/.exec(path)?.[1] ?? value).toLowerCase();
  return (/\/comments\/([A-Za-z0-9]+)/.exec(value)?.[1] ?? value.replace(/^t3_/i, '')).toLowerCase();
}

/**
 * The platform's own pages, whose URLs look like a profile's (`https://x.com/home`, `https://x.com/i/lists/1`): no
 * account has these names, so a URL naming one is not a profile's and is refused rather than read as an account.
 */
const MICROBLOG_PAGES = new Set(['i', 'home', 'explore', 'search', 'notifications', 'messages', 'settings', 'compose', 'hashtag', 'intent', 'share', 'login', 'logout', 'signup', 'tos', 'privacy', 'jobs']);

/**
 * `someone`, `@someone`, `https://x.com/someone` (or twitter.com, mobile.) → `someone`; a numeric id stays an id. A URL
 * of one of the platform's own pages stays as given, which the username pattern then refuses.
 */
export function normaliseMicroblogUser(value: string): string {
  const path = pathOf(value);
  const name = path ? /^\/@?([A-Za-z0-9_]+)/.exec(path)?.[1] : undefined;
  if (name && MICROBLOG_PAGES.has(name.toLowerCase())) return value;
  return name ?? value.replace(/^@/, '');
}

/** `123`, `https://x.com/someone/status/123?s=20`, `…/statuses/123` → `123`. */
export function normaliseMicroblogPost(value: string): string {
  return /\/status(?:es)?\/([0-9]+)/.exec(value)?.[1] ?? value;
}

/** `123`, `https://x.com/i/lists/123` → `123`. */
export function normaliseMicroblogList(value: string): string {
  return /\/lists\/([0-9]+)/.exec(value)?.[1] ?? value;
}

const identifier = (normalise: (value: string) => string, pattern: RegExp, what: string) =>
  z
    .string()
    .trim()
    .min(1)
    .max(2048)
    .transform(normalise)
    .pipe(z.string().regex(pattern, what));

const SearchTarget = z
  .object({
    kind: z.literal('search'),
    keywords: KEYWORDS.refine((keywords) => parseKeywords(keywords).some((term) => !term.excluded), 'at least one word or phrase that must appear'),
  })
  .strict()
  .describe('`search`: new posts matching `keywords`, across the monitor’s `sources` (forum, microblog or both).');

const SubforumTarget = z
  .object({
    kind: z.literal('subforum'),
    subforum: identifier(normaliseSubforum, /^(?:[A-Za-z0-9][A-Za-z0-9_]{2,20}|[A-Za-z]{2})$/, 'a community name, `r/name` or community URL'),
    keywords: KEYWORDS.optional(),
  })
  .strict()
  .describe('`subforum`: new posts in one forum community, all of them or those matching `keywords`.');

const ForumUserTarget = z
  .object({ kind: z.literal('forum_user'), username: identifier(normaliseForumUser, /^[A-Za-z0-9_-]{3,20}$/, 'a forum username, `u/name` or profile URL') })
  .strict()
  .describe('`forum_user`: new posts by one forum account.');

const ForumThreadTarget = z
  .object({ kind: z.literal('forum_thread'), post: identifier(normaliseForumPost, /^[a-z0-9]{1,13}$/, 'a forum post id, `t3_` fullname or post URL') })
  .strict()
  .describe('`forum_thread`: new comments under one forum post (results are `itemType: comment`).');

const MicroblogUserTarget = z
  .object({
    kind: z.literal('microblog_user'),
    user: identifier(normaliseMicroblogUser, /^[A-Za-z0-9_]{1,50}$/, 'a username, `@handle`, profile URL or numeric id'),
    includeReplies: z.boolean().default(false).describe('Also report the account’s replies (default: posts and reposts only).'),
  })
  .strict()
  .describe('`microblog_user`: new posts by one microblog account.');

const MicroblogThreadTarget = z
  .object({ kind: z.literal('microblog_thread'), post: identifier(normaliseMicroblogPost, /^[0-9]{1,19}$/, 'a post id or status URL') })
  .strict()
  .describe('`microblog_thread`: new replies under one microblog post.');

const MicroblogListTarget = z
  .object({ kind: z.literal('microblog_list'), list: identifier(normaliseMicroblogList, /^[0-9]{1,19}$/, 'a List id or List URL') })
  .strict()
  .describe('`microblog_list`: new posts by the members of one public microblog List.');

export const MonitorTargetInput = z
  .discriminatedUnion('kind', [SearchTarget, SubforumTarget, ForumUserTarget, ForumThreadTarget, MicroblogUserTarget, MicroblogThreadTarget, MicroblogListTarget])
  .describe(
    'What the monitor watches, by `kind`: `search` {keywords}, `subforum` {subforum, keywords?}, `forum_user` {username}, `forum_thread` {post}, `microblog_user` {user, includeReplies?}, `microblog_thread` {post}, `microblog_list` {list}. URLs, `r/`, `u/`, `@` and `t3_` forms are accepted.',
  );

export type MonitorTarget = z.output<typeof MonitorTargetInput>;

export const MonitorSourcesInput = distinctList(MONITOR_SOURCES).describe('Platforms a `search` monitor reads, each at most once: `forum`, `microblog` (default both). Every other kind reads its own platform only.');

/** The platforms a target kind can read: a search reads either; everything else has one home. */
export function allowedSources(target: MonitorTarget): readonly MonitorSource[] {
  if (target.kind === 'search') return MONITOR_SOURCES;
  return target.kind.startsWith('forum') || target.kind === 'subforum' ? ['forum'] : ['microblog'];
}

export function defaultSources(target: MonitorTarget): MonitorSource[] {
  return [...allowedSources(target)];
}

/** The sources that `target` cannot read, for a 400 naming `sources`. */
export function unreadableSources(target: MonitorTarget, sources: readonly string[]): string[] {
  const allowed = new Set<string>(allowedSources(target));
  return sources.filter((source) => !allowed.has(source));
}
