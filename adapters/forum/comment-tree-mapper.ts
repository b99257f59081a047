import type { ForumComment, ForumPost } from '../shapes/forum-shapes.ts';
import { asMore, asT1, asT3, isListing, isThing, type Listing, type Thing } from './forum-wire.ts';
import { mapForumComment, postContextOf, type OwningPostContext } from './forum-comment-mapper.ts';
import { mapForumPost } from './forum-post-mapper.ts';
import { DEFAULT_FORUM_SITE_URL, ForumPayloadError } from './forum-field-rules.ts';

/** An unloaded part of the tree. `continueThread` is the `id: "_"` form: the tree was cut by depth. */
export interface MoreStub {
  id: string;
  parentId: string;
  depth: number;
  count: number;
  children: string[];
  continueThread: boolean;
}

export type TreeEntry = { kind: 'comment'; comment: ForumComment; depth: number } | { kind: 'more'; more: MoreStub };

export interface CommentTreePage {
  post: ForumPost;
  /** Depth-first, parents before children, siblings in the platform's order. */
  entries: TreeEntry[];
}

/** Flattens `/comments/{id}`: an array of two Listings, the post in `[0]`, the tree in `[1]`. */
export function mapCommentTree(body: unknown, siteUrl: string = DEFAULT_FORUM_SITE_URL): CommentTreePage {
  if (!Array.isArray(body) || body.length < 2 || !isListing(body[0]) || !isListing(body[1])) {
    throw new ForumPayloadError('comment tree is not an array of two Listings');
  }
  const postThing = body[0].data.children?.find((c) => c.kind === 't3');
  if (!postThing) throw new ForumPayloadError('comment tree lacks its post');
  const post = mapForumPost(asT3(postThing), siteUrl);
  const entries: TreeEntry[] = [];
  walk(body[1], postContextOf(post), siteUrl, entries, 0);
  return { post, entries };
}

/**
 * Maps the flat `things` of `/api/morechildren` (`{json: {data: {things}}}`), which already come
 * parents-first; depths are taken from the payload.
 */
export function mapMoreChildren(body: unknown, post: OwningPostContext, siteUrl: string = DEFAULT_FORUM_SITE_URL): TreeEntry[] {
  const things = (body as { json?: { data?: { things?: unknown } } } | null)?.json?.data?.things;
  if (!Array.isArray(things)) throw new ForumPayloadError('morechildren answer lacks json.data.things');
  return things.filter(isThing).map((thing) => toEntry(thing, post, siteUrl, 0));
}

function walk(listing: Listing, post: OwningPostContext, siteUrl: string, out: TreeEntry[], depth: number): void {
  for (const child of listing.data.children ?? []) {
    const entry = toEntry(child, post, siteUrl, depth);
    out.push(entry);
    if (entry.kind === 'comment') {
      const replies = asT1(child).replies;
      // `replies` is a Listing or the empty string, never null.
      if (replies !== '' && replies !== undefined && isListing(replies)) walk(replies, post, siteUrl, out, entry.depth + 1);
    }
  }
}

function toEntry(thing: Thing, post: OwningPostContext, siteUrl: string, fallbackDepth: number): TreeEntry {
  if (thing.kind === 'more') {
    const more = asMore(thing);
    return {
      kind: 'more',
      more: {
        id: more.id,
        parentId: more.parent_id,
        depth: more.depth ?? fallbackDepth,
        count: more.count ?? 0,
        children: more.children ?? [],
        continueThread: more.id === '_',
      },
    };
  }
  if (thing.kind !== 't1') throw new ForumPayloadError(`unexpected ${thing.kind} inside a comment tree`);
  const data = asT1(thing);
  return { kind: 'comment', comment: mapForumComment(data, post, siteUrl), depth: data.depth ?? fallbackDepth };
}
