import type { ForumComment, ForumPost } from '../shapes/forum-shapes.ts';
import type { T1Data } from './forum-wire.ts';
import { stripPrefix } from './forum-wire.ts';
import { absoluteUrl, DEFAULT_FORUM_SITE_URL, distinguishedValue, ForumPayloadError, editedSeconds, epochToIso, requireNumber, requireString } from './forum-field-rules.ts';

/** What a comment says about its post; only comment listings carry it inline (`link_title`, …). */
export interface OwningPostContext {
  title: string;
  author: string;
  /** Absolute URL. */
  url: string;
  numComments: number;
  over18: boolean;
}

export function postContextOf(post: ForumPost): OwningPostContext {
  return { title: post.title, author: post.author, url: post.url, numComments: post.numComments, over18: post.over18 };
}

/** The inline `link_*` fields of comment listings, when all are there. */
function inlinePostContext(data: T1Data, siteUrl: string = DEFAULT_FORUM_SITE_URL): OwningPostContext | undefined {
  if (data.link_title === undefined || data.link_author === undefined || data.link_permalink === undefined) return undefined;
  return {
    title: data.link_title,
    author: data.link_author,
    url: absoluteUrl(siteUrl, data.link_permalink),
    numComments: data.num_comments ?? 0,
    over18: data.over_18 === true,
  };
}

/**
 * Maps a `t1` Thing's data to the spec's forum comment. `/api/info` and comment trees omit the owning post's
 * fields, so the caller passes the post; comment listings carry them inline and need no context.
 */
export function mapForumComment(data: T1Data, context?: OwningPostContext, siteUrl: string = DEFAULT_FORUM_SITE_URL): ForumComment {
  const post = inlinePostContext(data, siteUrl) ?? context;
  const id = requireString(data.id ?? (data.name ? stripPrefix(data.name) : undefined), 't1.id');
  if (!post) throw new ForumPayloadError(`comment ${id}: the owning post is needed to fill link fields`);
  const createdUtc = requireNumber(data.created_utc, 't1.created_utc');
  return {
    id,
    postId: stripPrefix(requireString(data.link_id, 't1.link_id')),
    parentId: requireString(data.parent_id, 't1.parent_id'),
    author: data.author ?? '[deleted]',
    body: data.body ?? '',
    score: Math.trunc(data.score ?? 0),
    permalink: absoluteUrl(siteUrl, data.permalink ?? commentPathUnder(post.url, id)),
    createdUtc,
    createdAt: epochToIso(createdUtc),
    subforum: requireString(data.subreddit, 't1.subreddit'),
    isSubmitter: data.is_submitter === true,
    edited: editedSeconds(data.edited, createdUtc),
    distinguished: distinguishedValue(data.distinguished),
    stickied: data.stickied === true,
    scoreHidden: data.score_hidden === true,
    linkTitle: post.title,
    linkAuthor: post.author,
    linkPermalink: post.url,
    numComments: Math.max(0, post.numComments),
    over18: post.over18,
  };
}

/** 2016 payloads have no comment `permalink`; the platform serves a comment at its post's URL plus its id. */
function commentPathUnder(postUrl: string, commentId: string): string {
  return `${postUrl.endsWith('/') ? postUrl : `${postUrl}/`}${commentId}/`;
}
