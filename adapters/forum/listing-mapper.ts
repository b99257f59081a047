import type { ForumComment, ForumPost, Subforum } from '../shapes/forum-shapes.ts';
import { asT1, asT3, asT5, isListing, type Thing } from './forum-wire.ts';
import { mapForumPost } from './forum-post-mapper.ts';
import { mapForumComment, type OwningPostContext } from './forum-comment-mapper.ts';
import { mapSubforum } from './subforum-mapper.ts';
import { DEFAULT_FORUM_SITE_URL, ForumPayloadError } from './forum-field-rules.ts';

export interface ListingPage<T> {
  items: T[];
  /** The platform's paging token (a fullname), null at the end. */
  after: string | null;
}

export function listingChildren(body: unknown): { children: Thing[]; after: string | null } {
  if (!isListing(body)) throw new ForumPayloadError('expected a Listing');
  return { children: body.data.children ?? [], after: body.data.after ?? null };
}

/** Promoted posts (ads) have no community and are not content: they are skipped. */
export function mapPostListing(body: unknown, siteUrl: string = DEFAULT_FORUM_SITE_URL): ListingPage<ForumPost> {
  const { children, after } = listingChildren(body);
  const items = children.filter((c) => c.kind === 't3' && asT3(c).subreddit !== undefined).map((c) => mapForumPost(asT3(c), siteUrl));
  return { items, after };
}

export function mapSubforumListing(body: unknown, siteUrl: string = DEFAULT_FORUM_SITE_URL): ListingPage<Subforum> {
  const { children, after } = listingChildren(body);
  return { items: children.filter((c) => c.kind === 't5').map((c) => mapSubforum(asT5(c), siteUrl)), after };
}

/** Comment listings (`/r/x/comments`, `/user/x/comments`) carry their post's fields inline. */
export function mapCommentListing(
  body: unknown,
  contextFor: (postFullname: string) => OwningPostContext | undefined = () => undefined,
  siteUrl: string = DEFAULT_FORUM_SITE_URL,
): ListingPage<ForumComment> {
  const { children, after } = listingChildren(body);
  const items = children
    .filter((c) => c.kind === 't1')
    .map((c) => {
      const data = asT1(c);
      return mapForumComment(data, data.link_id ? contextFor(data.link_id) : undefined, siteUrl);
    });
  return { items, after };
}
