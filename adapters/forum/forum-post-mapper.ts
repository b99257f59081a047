import type { ForumPost } from '../shapes/forum-shapes.ts';
import type { T3Data } from './forum-wire.ts';
import { stripPrefix } from './forum-wire.ts';
import {
  absoluteUrl,
  DEFAULT_FORUM_SITE_URL,
  distinguishedValue,
  editedSeconds,
  epochToIso,
  requireNumber,
  requireString,
} from './forum-field-rules.ts';

/** Maps a `t3` Thing's data to the spec's forum post. */
export function mapForumPost(data: T3Data, siteUrl: string = DEFAULT_FORUM_SITE_URL): ForumPost {
  const id = requireString(data.id ?? (data.name ? stripPrefix(data.name) : undefined), 't3.id');
  const subforum = requireString(data.subreddit, 't3.subreddit');
  const createdUtc = requireNumber(data.created_utc, 't3.created_utc');
  const permalink = requireString(data.permalink, 't3.permalink');
  const isSelf = data.is_self === true;
  // Absent (not null) on self posts and before 2020; link posts then carry their target in `url`.
  const linkTarget = isSelf ? null : (data.url_overridden_by_dest ?? data.url ?? null);
  return {
    id,
    subforum,
    title: data.title ?? '',
    selftext: data.selftext ?? '',
    author: data.author ?? '[deleted]',
    permalink,
    url: absoluteUrl(siteUrl, permalink),
    score: Math.trunc(data.score ?? 0),
    // Absent only in pre-2018 `/api/info` payloads; 1 is the platform's own value for a post nobody has voted on.
    upvoteRatio: clampRatio(data.upvote_ratio ?? 1),
    numComments: Math.max(0, data.num_comments ?? 0),
    over18: data.over_18 === true,
    createdUtc,
    createdAt: epochToIso(createdUtc),
    domain: data.domain ?? (isSelf ? `self.${subforum}` : ''),
    isSelf,
    urlOverriddenByDest: linkTarget === null ? null : absoluteUrl(siteUrl, linkTarget),
    linkFlairText: data.link_flair_text ?? null,
    authorFlairText: data.author_flair_text ?? null,
    distinguished: distinguishedValue(data.distinguished),
    stickied: data.stickied === true,
    locked: data.locked === true,
    archived: data.archived === true,
    spoiler: data.spoiler === true,
    edited: editedSeconds(data.edited, createdUtc),
    numCrossposts: Math.max(0, data.num_crossposts ?? 0),
    crosspostParent: data.crosspost_parent ? stripPrefix(data.crosspost_parent) : null,
    removedByCategory: data.removed_by_category ?? null,
    subforumSubscribers: Math.max(0, data.subreddit_subscribers ?? 0),
    postHint: data.post_hint ?? null,
    isVideo: data.is_video === true,
  };
}

function clampRatio(value: number): number {
  return Math.min(1, Math.max(0, value));
}
