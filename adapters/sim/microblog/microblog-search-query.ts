import type { MicroblogWorld, SimPost } from './microblog-world.ts';

/**
 * The simulated platform's reading of a raw search query: the operators the real search documents, each term
 * ANDed. `OR` and parentheses are not supported (the service never sends them).
 */
export interface ParsedSearch {
  words: string[];
  phrases: string[];
  excluded: string[];
  from: string[];
  to: string[];
  mentions: string[];
  hashtags: string[];
  lang: string | null;
  since: number | null;
  until: number | null;
  minFaves: number;
  minRetweets: number;
  minReplies: number;
  filters: Set<string>;
  excludedFilters: Set<string>;
  quotedId: string | null;
  includeReposts: boolean;
}

export function parseSearchQuery(raw: string): ParsedSearch {
  const q: ParsedSearch = {
    words: [], phrases: [], excluded: [], from: [], to: [], mentions: [], hashtags: [], lang: null, since: null, until: null,
    minFaves: 0, minRetweets: 0, minReplies: 0, filters: new Set(), excludedFilters: new Set(), quotedId: null, includeReposts: false,
  };
  for (const m of raw.matchAll(/(-?)"([^"]*)"|(\S+)/g)) {
    if (m[2] !== undefined) {
      if (m[1]) q.excluded.push(m[2].toLowerCase());
      else q.phrases.push(m[2].toLowerCase());
      continue;
    }
    const token = m[3];
    const negated = token.startsWith('-') && token.length > 1;
    const body = negated ? token.slice(1) : token;
    const colon = body.indexOf(':');
    const op = colon > 0 ? body.slice(0, colon).toLowerCase() : '';
    const value = colon > 0 ? body.slice(colon + 1) : '';
    switch (op) {
      case 'from': q.from.push(value.replace(/^@/, '').toLowerCase()); continue;
      case 'to': q.to.push(value.replace(/^@/, '').toLowerCase()); continue;
      case 'lang': q.lang = value.toLowerCase(); continue;
      case 'since': q.since = Date.parse(`${value}T00:00:00Z`); continue;
      case 'until': q.until = Date.parse(`${value}T00:00:00Z`); continue;
      case 'min_faves': q.minFaves = Number(value) || 0; continue;
      case 'min_retweets': q.minRetweets = Number(value) || 0; continue;
      case 'min_replies': q.minReplies = Number(value) || 0; continue;
      case 'quoted_tweet_id': q.quotedId = value; continue;
      case 'include': if (value === 'nativeretweets') q.includeReposts = true; continue;
      case 'filter':
        (negated ? q.excludedFilters : q.filters).add(value.toLowerCase());
        if (!negated && (value === 'nativeretweets' || value === 'retweets')) q.includeReposts = true;
        continue;
      default:
        break;
    }
    if (negated) q.excluded.push(body.toLowerCase());
    else if (body.startsWith('@')) q.mentions.push(body.slice(1).toLowerCase());
    else if (body.startsWith('#')) q.hashtags.push(body.slice(1).toLowerCase());
    else q.words.push(body.toLowerCase());
  }
  return q;
}

function filterHolds(world: MicroblogWorld, post: SimPost, filter: string): boolean {
  const media = post.media;
  switch (filter) {
    case 'media': return media.length > 0;
    case 'images': return media.some((m) => m.type === 'photo');
    case 'videos': case 'native_video': return media.some((m) => m.type !== 'photo');
    case 'links': return /https?:\/\//.test(post.text);
    case 'replies': return post.inReplyToId !== null;
    case 'quote': return post.quotedId !== null;
    case 'retweets': case 'nativeretweets': return post.repostOfId !== null;
    case 'verified': case 'blue_verified': return (world.users.get(post.authorId)?.verifiedType ?? 'none') !== 'none';
    default: return false;
  }
}

export function matchesSearch(world: MicroblogWorld, post: SimPost, q: ParsedSearch): boolean {
  if (post.repostOfId && !q.includeReposts) return false;
  const source = post.repostOfId ? world.posts.get(post.repostOfId) ?? post : post;
  const text = source.text.toLowerCase();
  const author = world.users.get(post.authorId)!;
  if (q.from.length && !q.from.includes(author.username.toLowerCase())) return false;
  if (q.to.length) {
    const parent = post.inReplyToId ? world.posts.get(post.inReplyToId) : undefined;
    const parentAuthor = parent ? world.users.get(parent.authorId)?.username.toLowerCase() : undefined;
    if (!parentAuthor || !q.to.includes(parentAuthor)) return false;
  }
  if (q.quotedId && !(post.quotedId && world.posts.get(post.quotedId)?.editIds.includes(q.quotedId))) return false;
  if (q.lang && post.lang !== q.lang) return false;
  if (q.since !== null && post.createdAt < q.since) return false;
  if (q.until !== null && post.createdAt >= q.until) return false;
  if (source.likeCount < q.minFaves || source.replyCount < q.minReplies || world.repostCount(source) < q.minRetweets) return false;
  for (const f of q.filters) if (!filterHolds(world, post, f)) return false;
  for (const f of q.excludedFilters) if (filterHolds(world, post, f)) return false;
  for (const w of q.words) if (!text.includes(w)) return false;
  for (const p of q.phrases) if (!text.includes(p)) return false;
  for (const x of q.excluded) if (text.includes(x)) return false;
  for (const m of q.mentions) if (!text.includes(`@${m}`)) return false;
  for (const h of q.hashtags) if (!text.includes(`#${h}`)) return false;
  return true;
}
