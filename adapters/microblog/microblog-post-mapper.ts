import type { MicroblogEntities, MicroblogPost, MicroblogPostBase } from '../shapes/microblog-shapes.ts';
import { mapArticle } from './microblog-article-mapper.ts';
import { tweetMediaList } from './microblog-media-mapper.ts';
import { isAvailableUser, mapAuthor, userUsername } from './microblog-user-mapper.ts';
import { expandLinks, parseClassicDate, unescapeHtml } from './microblog-text.ts';
import { postUrl, toCount, type WireEntities, type WireTweet, type WireTweetResult } from './wire.ts';

/**
 * Tweet results → posts (FIELD-NOTES 2.3–2.5). `TweetWithVisibilityResults` wraps the tweet in `.tweet`;
 * `TweetTombstone`, `TweetUnavailable` and empty slots are posts that cannot be returned (null).
 */
export function unwrapTweet(result: WireTweetResult | null | undefined): WireTweet | null {
  if (!result || typeof result !== 'object') return null;
  if (result.__typename === 'TweetWithVisibilityResults') return result.tweet ? unwrapTweet(result.tweet) : null;
  if (result.__typename && result.__typename !== 'Tweet') return null;
  if (!result.rest_id || !result.legacy) return null;
  return result as WireTweet;
}

/** Why a tweet result is not a post: `TweetTombstone` text, `TweetUnavailable` reason, or null for a tweet. */
export function unavailableTweetReason(result: WireTweetResult | null | undefined): string | null {
  if (unwrapTweet(result)) return null;
  if (result?.__typename === 'TweetTombstone') return String(result.tombstone?.text?.text ?? 'Tombstone');
  if (result?.__typename === 'TweetUnavailable') return String(result.reason ?? 'Unavailable');
  return 'Unavailable';
}

function entitiesOf(set: WireEntities | undefined): MicroblogEntities {
  return {
    hashtags: (set?.hashtags ?? []).map((h) => String(h.text)),
    mentions: (set?.user_mentions ?? []).map((m) => String(m.screen_name)),
    urls: (set?.urls ?? []).map((u) => String(u.expanded_url ?? u.url)),
  };
}

function noteOf(t: WireTweet): { text: string; entity_set?: WireEntities } | null {
  const note = t.note_tweet?.note_tweet_results?.result;
  return note && typeof note.text === 'string' ? { text: note.text, entity_set: note.entity_set } : null;
}

/**
 * Full text: a long post's note text (never HTML-escaped) or `full_text` (HTML-escaped). For full_text the
 * visible part ends at `display_text_range[1]` (the trailing media links are cut); both keep the leading
 * reply mentions. Short links are replaced by their targets.
 */
export function postText(t: WireTweet): string {
  const note = noteOf(t);
  if (note) return expandLinks(note.text, note.entity_set?.urls);
  const legacy = t.legacy;
  const points = Array.from(String(legacy.full_text ?? ''));
  const end = Array.isArray(legacy.display_text_range) ? legacy.display_text_range[1] : points.length;
  return unescapeHtml(expandLinks(points.slice(0, end).join(''), legacy.entities?.urls));
}

function mapBase(t: WireTweet): MicroblogPostBase | null {
  const author = t.core?.user_results?.result;
  if (!isAvailableUser(author)) return null;
  const l = t.legacy;
  const id = String(t.rest_id);
  const note = noteOf(t);
  const article = t.article?.article_results?.result;
  return {
    id,
    text: postText(t),
    url: postUrl(userUsername(author), id),
    lang: l.lang ?? null,
    createdAt: parseClassicDate(l.created_at),
    conversationId: l.conversation_id_str ?? null,
    inReplyToId: l.in_reply_to_status_id_str ?? null,
    author: mapAuthor(author),
    likeCount: toCount(l.favorite_count),
    repostCount: toCount(l.retweet_count),
    replyCount: toCount(l.reply_count),
    viewCount: toCount(t.views?.count),
    quoteCount: toCount(l.quote_count),
    bookmarkCount: toCount(l.bookmark_count),
    media: tweetMediaList(l),
    entities: entitiesOf(note ? note.entity_set : l.entities),
    article: article?.rest_id ? mapArticle(article, t, false) : null,
  };
}

/** A quoted or reposted post: one level only, so its own quote/repost is not followed. */
export function mapPostBase(result: WireTweetResult | null | undefined): MicroblogPostBase | null {
  const t = unwrapTweet(result);
  return t ? mapBase(t) : null;
}

/** The first version of an edited post, kept beside the mapped post (it is not a field of the spec's post). */
const editOrigins = new WeakMap<MicroblogPost, string>();

/** The id of the version an edited post started as; undefined for a post never edited (or its first version). */
export function editOriginOf(post: MicroblogPost): string | undefined {
  return editOrigins.get(post);
}

export function mapPost(result: WireTweetResult | null | undefined): MicroblogPost | null {
  const t = unwrapTweet(result);
  if (!t) return null;
  const base = mapBase(t);
  if (!base) return null;
  const post: MicroblogPost = {
    ...base,
    // Quotes sit at the tweet's top level; reposts inside legacy.
    quotedPost: t.quoted_status_result?.result ? mapPostBase(t.quoted_status_result.result) : null,
    repostedPost: t.legacy.retweeted_status_result?.result ? mapPostBase(t.legacy.retweeted_status_result.result) : null,
  };
  // An edit is a new post with a new id; `edit_control` names the first version (FIELD-NOTES 2.8).
  const origin = t.edit_control?.initial_tweet_id ?? t.edit_control?.edit_tweet_ids?.[0];
  if (origin !== undefined && String(origin) !== post.id) editOrigins.set(post, String(origin));
  return post;
}
