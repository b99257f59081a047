import type { SimComment, SimPost, SimSubforum } from './forum-sim-records.ts';
import { slugOf } from './forum-text.ts';

/** Encodes sim records in the platform's wire format, field for field as in the recorded fixtures. */

export const SIM_SITE_URL = 'https://www.reddit.com';

export function thing(kind: string, data: Record<string, unknown>): { kind: string; data: Record<string, unknown> } {
  return { kind, data };
}

export function listing(children: unknown[], after: string | null, before: string | null = null): unknown {
  return { kind: 'Listing', data: { after, dist: children.length, modhash: '', geo_filter: '', children, before } };
}

export function postPermalink(post: SimPost): string {
  return `/r/${post.subforum}/comments/${post.id}/${slugOf(post.title)}/`;
}

export function encodePost(post: SimPost, sub: SimSubforum, numComments: number, crosspostParent?: SimPost): Record<string, unknown> {
  const permalink = postPermalink(post);
  const isSelf = post.kind === 'self' || post.kind === 'poll';
  const data: Record<string, unknown> = {
    approved_at_utc: null,
    subreddit: post.subforum,
    selftext: post.selftext,
    author_fullname: post.author === '[deleted]' ? undefined : `t2_${post.author}`,
    saved: false,
    gilded: 0,
    title: post.title,
    link_flair_richtext: [],
    subreddit_name_prefixed: `r/${post.subforum}`,
    hidden: false,
    link_flair_text: post.linkFlair,
    downs: 0,
    upvote_ratio: post.upvoteRatio,
    ups: post.score,
    score: post.score,
    thumbnail: isSelf ? 'self' : post.over18 ? 'nsfw' : 'default',
    edited: post.edited ?? false,
    author_flair_text: post.authorFlair,
    is_self: isSelf,
    subreddit_type: sub.type,
    created: post.createdUtc,
    domain: domainOf(post),
    selftext_html: post.selftext ? `<div class="md"><p>${escapeHtml(post.selftext)}</p></div>` : null,
    archived: post.archived,
    over_18: post.over18,
    spoiler: post.spoiler,
    locked: post.locked,
    subreddit_id: `t5_${sub.id}`,
    removed_by_category: post.removedByCategory,
    id: post.id,
    name: `t3_${post.id}`,
    quarantine: false,
    author: post.author,
    num_comments: numComments,
    permalink,
    url: urlOf(post, permalink, crosspostParent),
    subreddit_subscribers: sub.subscribers,
    created_utc: post.createdUtc,
    num_crossposts: post.numCrossposts,
    media: null,
    secure_media: null,
    is_video: post.kind === 'video',
    stickied: post.stickied,
    distinguished: post.distinguished,
  };
  if (!isSelf) data.url_overridden_by_dest = data.url;
  const hint = postHintOf(post);
  if (hint) data.post_hint = hint;
  if (post.kind === 'video') {
    const video = { fallback_url: `https://v.redd.it/${post.id}/DASH_720.mp4`, hls_url: `https://v.redd.it/${post.id}/HLSPlaylist.m3u8`, duration: 42, height: 720, width: 1280, is_gif: false };
    data.media = { reddit_video: video };
    data.secure_media = { reddit_video: video };
  }
  if (post.kind === 'gallery') {
    data.is_gallery = true;
    const ids = [`${post.id}g1`, `${post.id}g2`];
    data.gallery_data = { items: ids.map((media_id, i) => ({ media_id, id: i + 1 })) };
    data.media_metadata = Object.fromEntries(
      ids.map((id) => [id, { status: 'valid', e: 'Image', m: 'image/jpg', s: { u: `https://preview.forum-media.example/${id}.jpg`, x: 1080, y: 720 }, p: [] }]),
    );
  }
  if (post.kind === 'poll') {
    data.poll_data = {
      options: [
        { id: `${post.index}1`, text: 'Yes' },
        { id: `${post.index}2`, text: 'No' },
      ],
      total_vote_count: 12,
      voting_end_timestamp: (post.createdUtc + 3 * 86_400) * 1000,
      user_selection: null,
    };
  }
  if (post.crosspostParent) {
    data.crosspost_parent = `t3_${post.crosspostParent}`;
    if (crosspostParent) data.crosspost_parent_list = [encodePost(crosspostParent, sub, 0)];
  }
  return data;
}

function urlOf(post: SimPost, permalink: string, crosspostParent?: SimPost): string {
  switch (post.kind) {
    case 'self':
    case 'poll':
      return SIM_SITE_URL + permalink;
    case 'gallery':
      return `${SIM_SITE_URL}/gallery/${post.id}`;
    case 'video':
      return `https://v.redd.it/${post.id}`;
    case 'crosspost':
      // The platform sends the parent's permalink, relative, as a crosspost's url.
      return crosspostParent ? postPermalink(crosspostParent) : `/comments/${post.crosspostParent}/`;
    default:
      return post.linkUrl ?? SIM_SITE_URL + permalink;
  }
}

function domainOf(post: SimPost): string {
  switch (post.kind) {
    case 'self':
    case 'poll':
    case 'crosspost':
      return `self.${post.subforum}`;
    case 'gallery':
      return 'reddit.com';
    case 'video':
      return 'v.redd.it';
    default:
      return post.linkUrl ? new URL(post.linkUrl).host : `self.${post.subforum}`;
  }
}

/** Absent, not null, when the platform did not classify (galleries, polls, crossposts). */
function postHintOf(post: SimPost): string | undefined {
  switch (post.kind) {
    case 'image':
      return 'image';
    case 'video':
      return 'hosted:video';
    case 'link':
      return 'link';
    case 'self':
      return post.index % 2 === 0 ? 'self' : undefined;
    default:
      return undefined;
  }
}

/** Trees and `/api/info` omit `link_*`; `replies` is `""` when there are none, never null. */
export function encodeComment(comment: SimComment, post: SimPost, replies: unknown = ''): Record<string, unknown> {
  return {
    approved_at_utc: null,
    author_is_blocked: false,
    edited: comment.edited ?? false,
    link_id: `t3_${comment.postId}`,
    replies,
    id: comment.id,
    name: `t1_${comment.id}`,
    author: comment.author,
    author_fullname: comment.author === '[deleted]' ? undefined : `t2_${comment.author}`,
    parent_id: comment.parentId,
    score: comment.score,
    ups: comment.score,
    downs: 0,
    body: comment.body,
    body_html: `<div class="md"><p>${escapeHtml(comment.body)}</p></div>`,
    is_submitter: comment.isSubmitter,
    stickied: comment.stickied,
    score_hidden: comment.scoreHidden,
    distinguished: comment.distinguished,
    subreddit: post.subforum,
    subreddit_name_prefixed: `r/${post.subforum}`,
    permalink: `${postPermalink(post)}${comment.id}/`,
    created: comment.createdUtc,
    created_utc: comment.createdUtc,
    depth: comment.depth,
    controversiality: 0,
    collapsed: comment.body === '[removed]',
    archived: post.archived,
    locked: false,
  };
}

/**
 * Full `t5` for about/search; private communities seen through `/api/info` or search carry only a subset
 * with null counters (as recorded).
 */
export function encodeSubforum(sub: SimSubforum, full: boolean): Record<string, unknown> {
  const base = {
    display_name: sub.name,
    display_name_prefixed: `r/${sub.name}`,
    title: sub.title,
    id: sub.id,
    name: `t5_${sub.id}`,
    url: `/r/${sub.name}/`,
    created: sub.createdUtc,
    created_utc: sub.createdUtc,
    subreddit_type: sub.type,
    public_description: full ? sub.description : '',
    community_icon: full ? sub.icon : '',
  };
  if (!full) {
    return { ...base, subscribers: null, over18: null, quarantine: null, lang: null, submission_type: null, icon_img: null, banner_img: null };
  }
  return {
    ...base,
    subscribers: sub.subscribers,
    accounts_active: sub.activeUsers,
    active_user_count: sub.activeUsers,
    over18: sub.over18,
    quarantine: sub.quarantine,
    lang: sub.lang,
    submission_type: sub.submissionType,
    icon_img: '',
    banner_img: sub.banner,
    description: `## ${sub.title}\n\n${sub.description}`,
  };
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
