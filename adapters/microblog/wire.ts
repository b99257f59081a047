/**
 * The microblog's web GraphQL payloads as the mappers read them (FIELD-NOTES 2.x). Every member is optional: the
 * platform omits what it likes, versions its shapes by date, and the mappers prove their OUTPUT against the zod
 * shapes. Counters arrive as numbers or numeric strings.
 */

type Count = number | string;

export interface WireUrlEntity {
  url?: string;
  expanded_url?: string;
  indices?: [number, number];
}

export interface WireEntities {
  hashtags?: { text?: string; indices?: [number, number] }[];
  user_mentions?: { screen_name?: string; indices?: [number, number] }[];
  urls?: WireUrlEntity[];
  media?: WireTweetMedia[];
}

export interface WireVideoVariant {
  content_type?: string;
  url?: string;
  bitrate?: number;
}

export interface WireTweetMedia {
  id_str?: string;
  type?: string;
  media_url_https?: string;
  video_info?: { variants?: WireVideoVariant[] };
}

export interface WireArticleMedia {
  media_id?: string;
  media_key?: string;
  media_info?: {
    __typename?: string;
    original_img_url?: string;
    original_img_width?: number;
    original_img_height?: number;
    width?: number;
    height?: number;
    variants?: WireVideoVariant[];
    video_info?: { variants?: WireVideoVariant[] };
  };
}

export interface WireDraftEntity {
  type?: string;
  data?: {
    url?: unknown;
    mediaItems?: { mediaId?: string; media_id?: string; localMediaId?: string }[];
    tweetId?: string | number;
    postId?: string | number;
    markdown?: unknown;
  };
}

export interface WireDraftBlock {
  text?: string;
  type?: string;
  depth?: number;
  inlineStyleRanges?: { offset: number; length: number; style?: string }[];
  entityRanges?: { key: string | number; offset: number; length: number }[];
  data?: { urls?: { fromIndex: number; toIndex: number; text?: string }[] };
}

export interface WireArticle {
  rest_id?: string;
  title?: string;
  preview_text?: string;
  cover_media?: WireArticleMedia;
  media_entities?: WireArticleMedia[];
  content_state?: {
    blocks?: WireDraftBlock[];
    /** An array of `{key, value}` on this platform; an object keyed by entity key in stock Draft.js. */
    entityMap?: { key: string | number; value: WireDraftEntity }[] | Record<string, WireDraftEntity>;
  };
  metadata?: { first_published_at_secs?: Count };
  lifecycle_state?: { modified_at_secs?: Count };
}

export interface WireEditControl {
  edit_tweet_ids?: (string | number)[];
  editable_until_msecs?: Count;
  edits_remaining?: Count;
  is_edit_eligible?: boolean;
  initial_tweet_id?: string | number;
  edit_control_initial?: WireEditControl;
}

export interface WireTweetLegacy {
  full_text?: string;
  display_text_range?: [number, number];
  lang?: string;
  created_at?: string;
  conversation_id_str?: string;
  in_reply_to_status_id_str?: string;
  favorite_count?: Count;
  retweet_count?: Count;
  reply_count?: Count;
  quote_count?: Count;
  bookmark_count?: Count;
  entities?: WireEntities;
  extended_entities?: { media?: WireTweetMedia[] };
  retweeted_status_result?: { result?: WireTweetResult };
}

/** A `Tweet`, or one of the results that stand in for it. */
export interface WireTweetResult {
  __typename?: string;
  rest_id?: string;
  legacy?: WireTweetLegacy;
  core?: { user_results?: { result?: WireUserResult } };
  views?: { count?: Count };
  note_tweet?: { note_tweet_results?: { result?: { text?: string; entity_set?: WireEntities } } };
  article?: { article_results?: { result?: WireArticle } };
  quoted_status_result?: { result?: WireTweetResult };
  edit_control?: WireEditControl;
  /** `TweetWithVisibilityResults` wraps the tweet here. */
  tweet?: WireTweetResult;
  /** `TweetTombstone`. */
  tombstone?: { text?: { text?: string } };
  /** `TweetUnavailable`. */
  reason?: string;
}

/** A tweet that is one: what `unwrapTweet` returns. */
export type WireTweet = WireTweetResult & { rest_id: string; legacy: WireTweetLegacy };

export interface WireUserLegacy {
  screen_name?: string;
  name?: string;
  verified?: boolean;
  verified_type?: string;
  followers_count?: Count;
  friends_count?: Count;
  statuses_count?: Count;
  favourites_count?: Count;
  profile_image_url_https?: string;
  profile_banner_url?: string;
  description?: string;
  /** The website as a short link; its target is in `entities.url`. */
  url?: string;
  entities?: WireProfileEntities;
  location?: string;
  created_at?: string;
  protected?: boolean;
  pinned_tweet_ids_str?: string[];
}

/** A profile's links: `description.urls` expand the bio's short links, `url.urls[0]` is the website. */
export interface WireProfileEntities {
  description?: { urls?: WireUrlEntity[] };
  url?: { urls?: WireUrlEntity[] };
}

/** A `User`, `UserUnavailable`, or the 2026 and transitional shapes of a user (FIELD-NOTES 2.6). */
export interface WireUserResult {
  __typename?: string;
  rest_id?: string;
  reason?: string;
  legacy?: WireUserLegacy;
  core?: { screen_name?: string; name?: string; created_at?: string };
  avatar?: { image_url?: string };
  banner?: { image_url?: string };
  location?: { location?: string };
  profile_bio?: { description?: string; entities?: WireProfileEntities };
  /** The website as a short link (2026); its target is in `profile_bio.entities.url`. */
  website?: { url?: string };
  privacy?: { protected?: boolean };
  is_blue_verified?: boolean;
  verification?: { verified?: boolean; verified_type?: string };
  relationship_counts?: { followers?: Count; following?: Count };
  tweet_counts?: { tweets?: Count };
  action_counts?: { favorites_count?: Count };
  pinned_items?: { tweet_ids_str?: string[] };
  profile_image_shape?: string;
  about_profile?: {
    account_based_in?: string;
    location_accurate?: boolean;
    created_country_accurate?: boolean;
    source?: string;
    username_changes?: { count?: Count; last_changed_at_msec?: Count };
  };
  verification_info?: { is_identity_verified?: boolean; reason?: { verified_since_msec?: Count } };
  timeline?: { timeline?: { instructions?: WireInstruction[] } };
  timeline_v2?: { timeline?: { instructions?: WireInstruction[] } };
}

export type WireUser = WireUserResult & { rest_id: string };

export interface WireItemContent {
  __typename?: string;
  cursorType?: string;
  value?: unknown;
  tweet_results?: { result?: WireTweetResult };
  user_results?: { result?: WireUserResult };
  promotedMetadata?: unknown;
}

export interface WireEntry {
  entryId?: string;
  content?: WireItemContent & {
    itemContent?: WireItemContent;
    items?: { entryId?: string; item?: { itemContent?: WireItemContent } }[];
  };
}

export interface WireInstruction {
  type?: string;
  entries?: WireEntry[];
  entry?: WireEntry;
}

type Timeline = { timeline?: { instructions?: WireInstruction[] } };

export interface WireList {
  id_str?: string;
  rest_id?: string;
  name?: string;
  description?: string;
  created_at?: Count;
  member_count?: Count;
  subscriber_count?: Count;
  mode?: string;
  user_results?: { rest_id?: string; result?: WireUserResult };
  members_timeline?: Timeline;
  tweets_timeline?: Timeline;
}

export interface WireSpaceParticipant {
  twitter_screen_name?: string;
  display_name?: string;
  is_verified?: boolean;
  avatar_url?: string;
  user_results?: { rest_id?: string; result?: WireUserResult };
}

export interface WireAudioSpace {
  metadata?: {
    rest_id?: string;
    state?: string;
    title?: string;
    language?: string;
    created_at?: Count;
    scheduled_start?: Count;
    started_at?: Count;
    ended_at?: Count;
    total_live_listeners?: Count;
    is_space_available_for_replay?: boolean;
  };
  participants?: { total?: Count; admins?: WireSpaceParticipant[]; speakers?: WireSpaceParticipant[] };
}

export interface WireError {
  message?: string;
  code?: number;
  kind?: string;
  /** `BadRequestError` with source `Client`: the platform refused the request itself as invalid. */
  name?: string;
  source?: string;
  extensions?: { code?: number; name?: string; source?: string };
}

/** Every operation's response body: `data` holds the member its operation names. */
export interface WireBody {
  errors?: WireError[];
  data?: {
    tweetResult?: { result?: WireTweetResult }[];
    users?: { result?: WireUserResult }[];
    user?: { result?: WireUserResult };
    user_result_by_screen_name?: { result?: WireUserResult };
    threaded_conversation_with_injections_v2?: { instructions?: WireInstruction[] };
    retweeters_timeline?: Timeline;
    search_by_raw_query?: { search_timeline?: Timeline };
    list?: WireList;
    audioSpace?: WireAudioSpace;
  };
}

export const MICROBLOG_SITE_URL = 'https://x.com';

export function postUrl(username: string, id: string): string {
  return `${MICROBLOG_SITE_URL}/${username}/status/${id}`;
}

export function profileUrl(username: string): string {
  return `${MICROBLOG_SITE_URL}/${username}`;
}

export function toCount(value: unknown): number | null {
  if (value === undefined || value === null || value === '') return null;
  const n = typeof value === 'number' ? value : Number(value);
  return Number.isInteger(n) && n >= 0 ? n : null;
}
