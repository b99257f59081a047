/**
 * Parses what `lookup_forum` accepts into bare ids and names: ids, fullnames, post URLs, the platform's short
 * links (`redd.it/<id>`), comment permalinks, `r/name` and community URLs. Share links (`/r/<sub>/s/<token>`)
 * carry no id and are refused; anything else unreadable is a validation error naming the entry.
 */
export type ReferenceProblem = { entry: string; field: 'posts' | 'comments' | 'subforums'; kind: 'share_link' | 'unreadable' };

export type Parsed<T> = { ok: true; value: T } | { ok: false; problem: ReferenceProblem };

const BASE36_ID = /^[a-z0-9]{1,13}$/;
const SUBFORUM_NAME = /^(?:[A-Za-z0-9][A-Za-z0-9_]{2,20}|[A-Za-z]{2})$/;
const SHORT_LINK_HOSTS = new Set(['redd.it', 'www.redd.it']);

function asUrl(entry: string): URL | undefined {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(entry) ? entry : /^[\w.-]+\.[a-z]{2,}\//i.test(entry) ? `https://${entry}` : undefined;
  if (!withScheme) return undefined;
  try {
    const url = new URL(withScheme);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : undefined;
  } catch {
    return undefined;
  }
}

function isShareLink(path: string): boolean {
  return /^\/r\/[^/]+\/s\/[^/]+/i.test(path) || /^\/s\/[^/]+/i.test(path);
}

/** Path segments after `/comments/`: post id, slug, comment id. */
function commentsPath(path: string): { postId?: string; commentId?: string } {
  const match = /(?:^|\/)comments\/([a-z0-9]{1,13})(?:\/([^/]*)(?:\/([a-z0-9]{1,13}))?)?/i.exec(path);
  return match ? { postId: match[1].toLowerCase(), commentId: match[3]?.toLowerCase() } : {};
}

export function parsePostReference(raw: string): Parsed<string> {
  const entry = raw.trim();
  const problem = (kind: ReferenceProblem['kind']): Parsed<string> => ({ ok: false, problem: { entry: raw, field: 'posts', kind } });
  const lower = entry.toLowerCase();
  if (lower.startsWith('t3_') && BASE36_ID.test(lower.slice(3))) return { ok: true, value: lower.slice(3) };
  if (BASE36_ID.test(lower)) return { ok: true, value: lower };
  const url = asUrl(entry);
  if (!url) return problem('unreadable');
  if (isShareLink(url.pathname)) return problem('share_link');
  if (SHORT_LINK_HOSTS.has(url.hostname.toLowerCase())) {
    const id = url.pathname.replace(/^\/+|\/+$/g, '').toLowerCase();
    return BASE36_ID.test(id) ? { ok: true, value: id } : problem('unreadable');
  }
  const { postId } = commentsPath(url.pathname);
  return postId ? { ok: true, value: postId } : problem('unreadable');
}

export function parseCommentReference(raw: string): Parsed<string> {
  const entry = raw.trim();
  const problem = (kind: ReferenceProblem['kind']): Parsed<string> => ({ ok: false, problem: { entry: raw, field: 'comments', kind } });
  const lower = entry.toLowerCase();
  if (lower.startsWith('t1_') && BASE36_ID.test(lower.slice(3))) return { ok: true, value: lower.slice(3) };
  if (BASE36_ID.test(lower)) return { ok: true, value: lower };
  const url = asUrl(entry) ?? (entry.startsWith('/') ? asUrl(`https://www.reddit.com${entry}`) : undefined);
  if (!url) return problem('unreadable');
  if (isShareLink(url.pathname)) return problem('share_link');
  const { commentId } = commentsPath(url.pathname);
  return commentId ? { ok: true, value: commentId } : problem('unreadable');
}

export function parseSubforumReference(raw: string): Parsed<string> {
  const entry = raw.trim();
  const problem = (kind: ReferenceProblem['kind']): Parsed<string> => ({ ok: false, problem: { entry: raw, field: 'subforums', kind } });
  const prefixed = /^\/?r\/([^/]+)\/?$/i.exec(entry);
  if (prefixed) return SUBFORUM_NAME.test(prefixed[1]) ? { ok: true, value: prefixed[1] } : problem('unreadable');
  if (SUBFORUM_NAME.test(entry)) return { ok: true, value: entry };
  const url = asUrl(entry);
  if (!url) return problem('unreadable');
  if (isShareLink(url.pathname)) return problem('share_link');
  // A community URL may carry a listing (`/r/pics/new/`) but not a post (`/r/pics/comments/…`).
  const match = /^\/r\/([^/]+)(?:\/(?!comments(?:\/|$)).*)?$/i.exec(url.pathname);
  return match && SUBFORUM_NAME.test(match[1]) ? { ok: true, value: match[1] } : problem('unreadable');
}
