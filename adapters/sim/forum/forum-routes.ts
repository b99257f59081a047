import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendJson } from '../sim-server.ts';
import type { ForumWorld } from './forum-world.ts';
import type { SimPost, SimSubforum } from './forum-sim-records.ts';
import { denialFor, NOT_FOUND, type AccessDenial } from './forum-access.ts';
import { encodeComment, encodePost, encodeSubforum, listing, thing } from './forum-wire-encoder.ts';
import {
  clampLimit,
  LISTING_CAP,
  pageOf,
  parseQuery,
  postMatches,
  postRelevance,
  SEARCH_CAP,
  sortPosts,
  subforumRelevance,
  withinWindow,
} from './forum-listing-engine.ts';
import { CommentRenderer, DEFAULT_TREE_DEPTH, DEFAULT_TREE_LIMIT, MAX_TREE_LIMIT, MORECHILDREN_BUDGET } from './forum-comment-renderer.ts';
import { handleForumControl } from './forum-control-routes.ts';

const INFO_LIMIT = 100;
/** Quota headers in the platform's format: a 10-minute window; the benchmark asks for a larger quota (SIM_FORUM_RATE_LIMIT). */
const RATE_WINDOW_SECONDS = 600;
const RATE_LIMIT = 100_000;

/** The simulated forum's HTTP surface: the platform's JSON API paths, with or without `.json`. */
export function createForumHandler(world: ForumWorld, rateLimit = RATE_LIMIT): (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<void> {
  let used = 0;
  let windowStart = Date.now();
  const send = (res: ServerResponse, status: number, body: unknown) => {
    const now = Date.now();
    if (now - windowStart > RATE_WINDOW_SECONDS * 1000) {
      windowStart = now;
      used = 0;
    }
    used += 1;
    sendJson(res, status, body, {
      'x-ratelimit-used': String(used),
      'x-ratelimit-remaining': (rateLimit - used).toFixed(1),
      'x-ratelimit-reset': String(Math.max(0, RATE_WINDOW_SECONDS - Math.floor((now - windowStart) / 1000))),
    });
  };
  const deny = (res: ServerResponse, denial: AccessDenial) => send(res, denial.status, denial.body);

  return async (req, res, url) => {
    if (url.pathname.startsWith('/__sim/forum/')) return handleForumControl(world, req, res, url);
    if (req.method !== 'GET') return send(res, 405, { message: 'Method Not Allowed', error: 405 });
    const path = url.pathname.replace(/\.json$/, '').replace(/\/+$/, '') || '/';
    const q = url.searchParams;
    const parts = path.split('/').filter(Boolean);

    if (path === '/api/info') return send(res, 200, info(world, q));
    if (path === '/api/morechildren') return moreChildren(world, q, res, send);
    if (path === '/subreddits/search') return send(res, 200, searchSubforums(world, q));
    if (path === '/search') return send(res, 200, searchPosts(world, world.allPosts(), q));
    if (parts[0] === 'comments' && parts[1]) return commentTree(world, parts[1], parts[3], q, res, send, deny);
    if (parts[0] === 'r' && parts[1]) {
      const sub = world.subforum(parts[1]);
      if (parts[2] === 'comments' && parts[3]) return commentTree(world, parts[3], parts[5], q, res, send, deny);
      const denial = denialFor(sub);
      if (denial) return deny(res, denial);
      if (parts[2] === 'about' && parts.length === 3) return send(res, 200, thing('t5', encodeSubforum(sub!, true)));
      if (parts[2] === 'search' && parts.length === 3) {
        const scope = q.get('restrict_sr') === '1' || q.get('restrict_sr') === 'on' || q.get('restrict_sr') === 'true' ? world.postsOf(sub!.name) : world.allPosts();
        return send(res, 200, searchPosts(world, scope, q));
      }
      if (parts.length === 3 && (parts[2] === 'new' || parts[2] === 'hot' || parts[2] === 'top')) {
        return send(res, 200, subforumListing(world, sub!, parts[2], q));
      }
    }
    return send(res, 404, NOT_FOUND.body);
  };
}

type Send = (res: ServerResponse, status: number, body: unknown) => void;

function readable(world: ForumWorld, post: SimPost): boolean {
  return denialFor(world.subforum(post.subforum)) === undefined;
}

function encodeSimPost(world: ForumWorld, post: SimPost): unknown {
  const sub = world.subforum(post.subforum)!;
  const parent = post.crosspostParent ? world.post(post.crosspostParent) : undefined;
  return thing('t3', encodePost(post, sub, world.numComments(post), parent));
}

/** `/api/info`: fullnames (any mix), community names, or a URL. Unknown or unreadable items are skipped. */
function info(world: ForumWorld, q: URLSearchParams): unknown {
  const children: unknown[] = [];
  const ids = q.get('id');
  const names = q.get('sr_name');
  const url = q.get('url');
  if (ids) {
    for (const fullname of ids.split(',').slice(0, INFO_LIMIT)) {
      const [kind, id] = [fullname.slice(0, 2), fullname.slice(3)];
      if (kind === 't3') {
        const post = world.post(id);
        if (post && readable(world, post)) children.push(encodeSimPost(world, post));
      } else if (kind === 't1') {
        const comment = world.comment(id);
        const post = comment ? world.post(comment.postId) : undefined;
        if (comment && post && readable(world, post)) children.push(thing('t1', encodeComment(comment, post)));
      } else if (kind === 't5') {
        const sub = world.allSubforums().find((s) => s.id === id);
        if (sub && !sub.banned) children.push(thing('t5', encodeSubforum(sub, sub.type !== 'private')));
      }
    }
  } else if (names) {
    for (const name of names.split(',').slice(0, INFO_LIMIT)) {
      const sub = world.subforum(name.trim());
      if (sub && !sub.banned) children.push(thing('t5', encodeSubforum(sub, sub.type !== 'private')));
    }
  } else if (url) {
    const wanted = normaliseUrl(url);
    for (const post of world.allPosts()) {
      if (!readable(world, post)) continue;
      const encoded = encodeSimPost(world, post) as { data: { url: string; permalink: string } };
      if (normaliseUrl(encoded.data.url) === wanted || normaliseUrl(`https://www.reddit.com${encoded.data.permalink}`) === wanted) children.push(encoded);
    }
  }
  return listing(children, null);
}

function normaliseUrl(raw: string): string {
  return raw.trim().replace(/^https?:\/\/(www\.|old\.|new\.)?/i, '').replace(/\/+$/, '').toLowerCase();
}

function commentTree(
  world: ForumWorld,
  postId: string,
  commentId: string | undefined,
  q: URLSearchParams,
  res: ServerResponse,
  send: Send,
  deny: (res: ServerResponse, d: AccessDenial) => void,
): void {
  const post = world.post(postId);
  if (!post) return deny(res, NOT_FOUND);
  const denial = denialFor(world.subforum(post.subforum));
  if (denial) return deny(res, denial);
  const tree = world.tree(post);
  const renderer = new CommentRenderer(tree, post, {
    sort: q.get('sort') ?? 'confidence',
    maxDepth: boundedInt(q.get('depth'), DEFAULT_TREE_DEPTH, 1, 50),
    limit: boundedInt(q.get('limit'), DEFAULT_TREE_LIMIT, 1, MAX_TREE_LIMIT),
  });
  let children: unknown[];
  if (commentId) {
    const focus = tree.byId.get(commentId);
    children = focus ? renderer.focused(focus, boundedInt(q.get('context'), 0, 0, 8)) : [];
  } else {
    children = renderer.nested(`t3_${post.id}`, 0);
  }
  send(res, 200, [listing([encodeSimPost(world, post)], null), listing(children, null)]);
}

function moreChildren(world: ForumWorld, q: URLSearchParams, res: ServerResponse, send: Send): void {
  const linkId = q.get('link_id') ?? '';
  const post = linkId.startsWith('t3_') ? world.post(linkId.slice(3)) : undefined;
  if (!post || !readable(world, post)) return send(res, 200, { json: { errors: [['INVALID_LINK', 'that link does not exist', 'link_id']], data: { things: [] } } });
  const ids = (q.get('children') ?? '').split(',').filter(Boolean).slice(0, INFO_LIMIT);
  const depthParam = q.get('depth');
  const first = ids.map((id) => world.comment(id)).find((c) => c !== undefined);
  const startDepth = first?.depth ?? 0;
  const renderer = new CommentRenderer(world.tree(post), post, {
    sort: q.get('sort') ?? 'confidence',
    maxDepth: startDepth + boundedInt(depthParam, DEFAULT_TREE_DEPTH, 1, 50),
    limit: MORECHILDREN_BUDGET,
  });
  send(res, 200, { json: { errors: [], data: { things: renderer.flat(ids) } } });
}

function searchSubforums(world: ForumWorld, q: URLSearchParams): unknown {
  const terms = (q.get('q') ?? '').toLowerCase().split(/\s+/).filter(Boolean);
  const includeOver18 = q.get('include_over_18') === 'on' || q.get('include_over_18') === 'true';
  // Banned and quarantined communities never appear in search; private ones do, with few fields.
  const matches = world
    .allSubforums()
    .filter((s) => !s.banned && !s.quarantine && (includeOver18 || !s.over18))
    .map((s) => ({ s, score: subforumRelevance(s, terms) }))
    .filter((m) => m.score > 0);
  const sort = q.get('sort') ?? 'relevance';
  matches.sort((a, b) => (sort === 'activity' ? b.s.activeUsers - a.s.activeUsers : b.score - a.score) || b.s.subscribers - a.s.subscribers || a.s.name.localeCompare(b.s.name));
  const page = pageOf(
    matches.map((m) => m.s),
    (s: SimSubforum) => `t5_${s.id}`,
    q.get('after'),
    pageSize(world, q),
    SEARCH_CAP,
  );
  return listing(page.items.map((s) => thing('t5', encodeSubforum(s, s.type !== 'private'))), page.after);
}

/** Post search: removed posts, unreadable communities and (unless asked) NSFW posts are left out. */
function searchPosts(world: ForumWorld, scope: readonly SimPost[], q: URLSearchParams): unknown {
  const query = parseQuery(q.get('q') ?? '');
  const includeOver18 = q.get('include_over_18') === 'on' || q.get('include_over_18') === 'true';
  const t = q.get('t');
  const now = world.now();
  const matches = scope.filter(
    (p) =>
      p.removedByCategory === null &&
      (includeOver18 || !p.over18) &&
      withinWindow(p.createdUtc, t, now) &&
      postMatches(p, query) &&
      readable(world, p),
  );
  const sorted = sortPosts(matches, q.get('sort') ?? 'relevance', (p) => postRelevance(p, query), (p) => world.numComments(p));
  const page = pageOf(sorted, (p) => `t3_${p.id}`, q.get('after'), pageSize(world, q), SEARCH_CAP);
  // A stalled search answers the page with the very `after` it was asked with.
  const after = q.get('after');
  const stalled = world.paging.stallAt !== undefined && after !== null && sorted.findIndex((p) => `t3_${p.id}` === after) + 1 >= world.paging.stallAt;
  return listing(page.items.map((p) => encodeSimPost(world, p)), stalled ? after : page.after);
}

function subforumListing(world: ForumWorld, sub: SimSubforum, sort: 'new' | 'hot' | 'top', q: URLSearchParams): unknown {
  const t = q.get('t');
  const now = world.now();
  const visible = world.postsOf(sub.name).filter((p) => p.removedByCategory === null && (sort !== 'top' || withinWindow(p.createdUtc, t, now)));
  const sorted = sortPosts([...visible], sort);
  const page = pageOf(sorted, (p) => `t3_${p.id}`, q.get('after'), pageSize(world, q), LISTING_CAP);
  return listing(page.items.map((p) => encodeSimPost(world, p)), page.after);
}

/** The page size asked for, plus the items the world is set to send beyond it. */
function pageSize(world: ForumWorld, q: URLSearchParams): number {
  return clampLimit(q.get('limit')) + (world.paging.overfill ?? 0);
}

function boundedInt(raw: string | null, fallback: number, min: number, max: number): number {
  const n = Number(raw ?? fallback);
  return Number.isFinite(n) ? Math.min(max, Math.max(min, Math.floor(n))) : fallback;
}
