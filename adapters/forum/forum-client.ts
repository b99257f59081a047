import { UpstreamHttpClient, type UpstreamQuery } from '../upstream/http-client.ts';
import { UpstreamError } from '../upstream/upstream-error.ts';
import type { ForumPost, Subforum } from '../shapes/forum-shapes.ts';
import { asT1, asT3, asT5, isThing, type T1Data } from './forum-wire.ts';
import { mapForumPost } from './forum-post-mapper.ts';
import { mapSubforum } from './subforum-mapper.ts';
import { mapCommentTree, mapMoreChildren, type CommentTreePage, type TreeEntry } from './comment-tree-mapper.ts';
import { listingChildren, mapPostListing, mapSubforumListing, type ListingPage } from './listing-mapper.ts';
import type { OwningPostContext } from './forum-comment-mapper.ts';
import { classifyForumResponse } from './forum-error-classifier.ts';
import { DEFAULT_FORUM_SITE_URL } from './forum-field-rules.ts';

/** The platform answers at most 100 fullnames, names or children per call. */
export const FORUM_BATCH_LIMIT = 100;

/** The platform's post search returns at most this many results in all, however many match (its listings: 1,000). */
export const FORUM_SEARCH_DEPTH = 250;

export interface ForumClientOptions {
  baseUrl: string;
  timeoutMs?: number;
  maxRetries?: number;
  connections?: number;
  /** Extra request headers, e.g. `authorization` and `user-agent` for the real platform. */
  headers?: Record<string, string>;
  /** Public site that permalinks are relative to. */
  siteUrl?: string;
}

/** A thing returned by `/api/info`. Comments stay raw: their post's fields come from a second lookup. */
export type InfoThing =
  | { kind: 'post'; post: ForumPost }
  | { kind: 'comment'; data: T1Data }
  | { kind: 'subforum'; subforum: Subforum };

export type SearchSort = 'relevance' | 'hot' | 'top' | 'new' | 'comments';
export type TimeWindow = 'hour' | 'day' | 'week' | 'month' | 'year' | 'all';
export type CommentSort = 'confidence' | 'top' | 'new' | 'controversial' | 'old' | 'qa';

export interface PostSearchParams {
  /** Query in the platform's syntax; operators such as `author:` and `self:yes` go inside it. */
  q: string;
  sort?: SearchSort;
  t?: TimeWindow;
  limit?: number;
  after?: string;
  includeOver18?: boolean;
}

export interface ForumClient {
  readonly stats: { requests: number; retries: number };
  readonly siteUrl: string;
  /** `/api/info?id=` — fullnames (`t1_`, `t3_`, `t5_`), any mix; missing ones are absent from the map. */
  getThings(fullnames: string[]): Promise<Map<string, InfoThing>>;
  /** `/api/info?sr_name=` — keyed by lower-cased name. */
  getSubforumsByNames(names: string[]): Promise<Map<string, Subforum>>;
  /** `/api/info?url=` — posts that link to, or live at, a URL. */
  getPostsByUrl(url: string): Promise<ForumPost[]>;
  /** `/r/{name}/about` — throws not_found or not_public(reason). */
  getSubforumAbout(name: string): Promise<Subforum>;
  /** `/comments/{id}` — the post and its first tree page. */
  getCommentTree(postId: string, opts?: { sort?: CommentSort; depth?: number; limit?: number; comment?: string }): Promise<CommentTreePage>;
  /** `/api/morechildren` — expands the ids of a `more` stub (at most 100 per call). */
  getMoreChildren(postId: string, children: string[], post: OwningPostContext, opts?: { sort?: CommentSort; depth?: number }): Promise<TreeEntry[]>;
  /** `/subreddits/search`. */
  searchSubforums(params: { q: string; sort?: 'relevance' | 'activity'; limit?: number; after?: string; includeOver18?: boolean }): Promise<ListingPage<Subforum>>;
  /** `/search` site-wide. */
  searchPosts(params: PostSearchParams): Promise<ListingPage<ForumPost>>;
  /** `/r/{name}/search?restrict_sr=1`. */
  searchSubforumPosts(name: string, params: PostSearchParams): Promise<ListingPage<ForumPost>>;
  /** `/r/{name}/{new|hot|top}` — the community's own listing. */
  listSubforumPosts(name: string, params: { sort: 'new' | 'hot' | 'top'; t?: TimeWindow; limit?: number; after?: string }): Promise<ListingPage<ForumPost>>;
  close(): Promise<void>;
}

export function createForumClient(options: ForumClientOptions): ForumClient {
  const siteUrl = options.siteUrl ?? DEFAULT_FORUM_SITE_URL;
  const http = new UpstreamHttpClient({
    baseUrl: options.baseUrl,
    platform: 'forum',
    timeoutMs: options.timeoutMs,
    maxRetries: options.maxRetries,
    connections: options.connections,
    headers: options.headers,
  });

  /** One GET, classified; any parse failure of a 2xx body becomes `unavailable`, never a raw exception. */
  async function get<T>(what: string, path: string, query: UpstreamQuery, parse: (body: unknown) => T): Promise<T> {
    const res = await http.getJson(path, { ...query, raw_json: 1 });
    const failure = classifyForumResponse(res.status, res.body, what);
    if (failure) throw failure;
    try {
      return parse(res.body);
    } catch (cause) {
      throw new UpstreamError('invalid', 'forum', `forum sent an unreadable answer for ${what}`, { status: res.status, cause });
    }
  }

  async function inChunks<T>(items: string[], fetch: (chunk: string[]) => Promise<T>): Promise<T[]> {
    const chunks: string[][] = [];
    for (let i = 0; i < items.length; i += FORUM_BATCH_LIMIT) chunks.push(items.slice(i, i + FORUM_BATCH_LIMIT));
    return Promise.all(chunks.map(fetch));
  }

  function postListingQuery(p: PostSearchParams): UpstreamQuery {
    return { q: p.q, sort: p.sort, t: p.t, limit: p.limit, after: p.after, include_over_18: p.includeOver18 ? 'on' : undefined, type: 'link' };
  }

  return {
    stats: http.stats,
    siteUrl,

    async getThings(fullnames) {
      const unique = [...new Set(fullnames)];
      const out = new Map<string, InfoThing>();
      const pages = await inChunks(unique, (chunk) =>
        get('things', '/api/info', { id: chunk.join(',') }, (body) => listingChildren(body).children),
      );
      for (const children of pages) {
        for (const child of children) {
          if (!isThing(child)) continue;
          const fullname = `${child.kind}_${(child.data as { id?: string }).id}`;
          try {
            if (child.kind === 't3') out.set(fullname, { kind: 'post', post: mapForumPost(asT3(child), siteUrl) });
            else if (child.kind === 't1') out.set(fullname, { kind: 'comment', data: asT1(child) });
            else if (child.kind === 't5') out.set(fullname, { kind: 'subforum', subforum: mapSubforum(asT5(child), siteUrl) });
          } catch (cause) {
            throw new UpstreamError('invalid', 'forum', `forum sent an unreadable ${fullname}`, { cause });
          }
        }
      }
      return out;
    },

    async getSubforumsByNames(names) {
      const unique = [...new Set(names.map((n) => n.toLowerCase()))];
      const out = new Map<string, Subforum>();
      const pages = await inChunks(unique, (chunk) =>
        get('communities', '/api/info', { sr_name: chunk.join(',') }, (body) => mapSubforumListing(body, siteUrl).items),
      );
      for (const page of pages) for (const sub of page) out.set(sub.name.toLowerCase(), sub);
      return out;
    },

    getPostsByUrl(url) {
      return get('posts by url', '/api/info', { url }, (body) => mapPostListing(body, siteUrl).items);
    },

    async getSubforumAbout(name) {
      return get(`community r/${name}`, `/r/${encodeURIComponent(name)}/about`, {}, (body) => {
        if (!isThing(body) || body.kind !== 't5') throw new Error('about is not a t5');
        return mapSubforum(asT5(body), siteUrl);
      });
    },

    getCommentTree(postId, opts = {}) {
      const path = opts.comment ? `/comments/${postId}/_/${opts.comment}` : `/comments/${postId}`;
      return get(`post t3_${postId}`, path, { sort: opts.sort, depth: opts.depth, limit: opts.limit }, (body) => mapCommentTree(body, siteUrl));
    },

    getMoreChildren(postId, children, post, opts = {}) {
      return get(
        `more comments of t3_${postId}`,
        '/api/morechildren',
        { api_type: 'json', link_id: `t3_${postId}`, children: children.slice(0, FORUM_BATCH_LIMIT).join(','), sort: opts.sort, depth: opts.depth, limit_children: false },
        (body) => mapMoreChildren(body, post, siteUrl),
      );
    },

    searchSubforums(p) {
      return get(
        'community search',
        '/subreddits/search',
        { q: p.q, sort: p.sort, limit: p.limit, after: p.after, include_over_18: p.includeOver18 ? 'on' : undefined },
        (body) => mapSubforumListing(body, siteUrl),
      );
    },

    searchPosts(p) {
      return get('search', '/search', postListingQuery(p), (body) => mapPostListing(body, siteUrl));
    },

    searchSubforumPosts(name, p) {
      return get(`search in r/${name}`, `/r/${encodeURIComponent(name)}/search`, { ...postListingQuery(p), restrict_sr: 1 }, (body) =>
        mapPostListing(body, siteUrl),
      );
    },

    listSubforumPosts(name, p) {
      return get(`r/${name}/${p.sort}`, `/r/${encodeURIComponent(name)}/${p.sort}`, { t: p.t, limit: p.limit, after: p.after }, (body) =>
        mapPostListing(body, siteUrl),
      );
    },

    close: () => http.close(),
  };
}
