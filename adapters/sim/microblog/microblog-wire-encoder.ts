import { createHash } from 'node:crypto';
import { escapeHtml, formatClassicDate, type WireObject as Wire } from './sim-json.ts';
import type { MicroblogWorld, SimArticle, SimList, SimMedia, SimPost, SimSpace, SimUser } from './microblog-world.ts';

/**
 * World records → the platform's web GraphQL wire format, as recorded in the fixtures: 2026 tweets with `legacy`,
 * users in the shape each account was assigned (2026, transitional or legacy), HTML-escaped `full_text`, t.co
 * links, code-point entity indices, note tweets for long posts, articles, audiospace cards.
 */

const NOTE_LIMIT = 280;
const NOTE_PREVIEW = 275;

function b64(text: string): string {
  return Buffer.from(text).toString('base64');
}

function tco(url: string): string {
  return `https://t.co/${createHash('sha1').update(url).digest('base64url').slice(0, 10)}`;
}

function cpLength(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/* ---------------------------------------------------------------- users */

function verificationOf(u: SimUser) {
  return {
    blue: u.verifiedType !== 'none' && u.verifiedType !== 'legacy',
    type: u.verifiedType === 'Business' || u.verifiedType === 'Government' ? u.verifiedType : undefined,
    legacy: u.verifiedType === 'legacy',
  };
}

export function encodeUser(world: MicroblogWorld, u: SimUser): Wire {
  if (u.suspended) return { __typename: 'UserUnavailable', message: 'User is suspended', reason: 'Suspended' };
  const v = verificationOf(u);
  const followers = world.followers.get(u.id)?.length ?? 0;
  const following = world.following.get(u.id)?.length ?? 0;
  const own = world.postsByAuthor.get(u.id) ?? [];
  const statuses = own.length;
  const mediaCount = own.filter((p) => p.media.length > 0).length;
  const pinned = u.pinnedPostId ? [u.pinnedPostId] : [];
  const website = u.website ? { url: tco(u.website), expanded_url: u.website, display_url: u.website.replace(/^https?:\/\//, ''), indices: [0, 23] } : null;
  const label = u.affiliateOf ? affiliateLabel(world, u.affiliateOf) : {};
  const common = {
    __typename: 'User',
    id: b64(`User:${u.id}`),
    rest_id: u.id,
    affiliates_highlighted_label: label,
    has_graduated_access: true,
    is_blue_verified: v.blue,
    profile_image_shape: u.verifiedType === 'Business' ? 'Square' : u.verifiedType === 'Government' ? 'Hexagon' : 'Circle',
    highlights_info: { can_highlight_tweets: v.blue, highlighted_tweets: String(u.highlightedPostIds.length) },
    verification_info: u.verifiedType === 'none' ? undefined : { reason: { verified_since_msec: String(u.createdAt + 86_400_000) } },
  };
  const legacyCounters = {
    favourites_count: u.likesGiven,
    followers_count: followers,
    friends_count: following,
    statuses_count: statuses,
    media_count: mediaCount,
    normal_followers_count: followers,
    listed_count: 0,
    description: u.bio,
    entities: { description: { urls: [] }, ...(website ? { url: { urls: [website] } } : {}) },
    pinned_tweet_ids_str: pinned,
    profile_banner_url: u.bannerUrl ?? undefined,
    url: website?.url,
  };
  if (u.shape === 'legacy') {
    return {
      ...common,
      legacy: {
        ...legacyCounters,
        created_at: formatClassicDate(u.createdAt),
        screen_name: u.username,
        name: u.name,
        location: u.location,
        profile_image_url_https: u.avatarUrl,
        verified: v.legacy,
        ...(v.type ? { verified_type: v.type } : {}),
        // 2024–2025 legacy objects omit `protected` unless it is true.
        ...(u.protected ? { protected: true } : {}),
      },
    };
  }
  const modern = {
    ...common,
    core: { created_at: formatClassicDate(u.createdAt), name: u.name, screen_name: u.username },
    avatar: { image_url: u.avatarUrl },
    location: { location: u.location },
    privacy: { protected: u.protected },
    verification: { verified: v.legacy, ...(v.type ? { verified_type: v.type } : {}) },
  };
  if (u.shape === 'transitional') return { ...modern, legacy: legacyCounters };
  return {
    ...modern,
    action_counts: { favorites_count: u.likesGiven },
    banner: u.bannerUrl ? { image_url: u.bannerUrl } : {},
    pinned_items: pinned.length > 0 ? { tweet_ids_str: pinned } : {},
    profile_bio: { description: u.bio, entities: { description: {}, ...(website ? { url: { urls: [website] } } : {}) } },
    relationship_counts: { followers, following },
    tweet_counts: { media_tweets: mediaCount, tweets: statuses },
    website: website ? { url: website.url } : {},
  };
}

function affiliateLabel(world: MicroblogWorld, orgId: string): Wire {
  const org = world.users.get(orgId);
  if (!org) return {};
  return {
    label: {
      badge: { url: `${org.avatarUrl.replace('_normal', '_bigger')}` },
      description: org.name,
      url: { url: `https://twitter.com/${org.username}`, urlType: 'DeepLink' },
      userLabelDisplayType: 'Badge',
      userLabelType: 'BusinessLabel',
    },
  };
}

/** An author as the platform hides it: protected or suspended accounts' posts do not come back. */
function hiddenReason(world: MicroblogWorld, post: SimPost): string | null {
  const author = world.users.get(post.authorId);
  if (!author || author.suspended) return 'Suspended';
  if (author.protected) return 'Protected';
  return null;
}

/* ---------------------------------------------------------------- text */

/** An entity with its position in the text, as the platform writes it. */
type Entity = Wire & { indices: [number, number] };

interface EncodedText {
  text: string;
  hashtags: Entity[];
  user_mentions: Entity[];
  urls: Entity[];
  /** Code points of the text before the trailing media link. */
  length: number;
}

const TOKEN = /(https?:\/\/[^\s]+)|(#[\p{L}\p{N}_]+)|(@[A-Za-z0-9_]{1,50})/gu;

/** Shortens links and records entity indices in code points of the text as sent (`escape` for full_text). */
function encodeText(world: MicroblogWorld, plain: string, escape: boolean): EncodedText {
  const out: EncodedText = { text: '', hashtags: [], user_mentions: [], urls: [], length: 0 };
  let pos = 0;
  let last = 0;
  const addPlain = (s: string) => {
    const piece = escape ? escapeHtml(s) : s;
    out.text += piece;
    pos += cpLength(piece);
  };
  for (const m of plain.matchAll(TOKEN)) {
    addPlain(plain.slice(last, m.index));
    const token = m[0];
    const start = pos;
    if (m[1]) {
      const short = tco(token);
      out.text += short;
      pos += cpLength(short);
      out.urls.push({ display_url: token.replace(/^https?:\/\//, '').slice(0, 26), expanded_url: token, url: short, indices: [start, pos] });
    } else {
      out.text += token;
      pos += cpLength(token);
      if (m[2]) out.hashtags.push({ indices: [start, pos], text: token.slice(1) });
      else {
        const user = world.userByName(token.slice(1));
        if (user) out.user_mentions.push({ id_str: user.id, name: user.name, screen_name: user.username, indices: [start, pos] });
      }
    }
    last = m.index + token.length;
  }
  addPlain(plain.slice(last));
  out.length = pos;
  return out;
}

function entitiesOf(e: EncodedText): Wire {
  // 2026 responses omit empty entity arrays.
  return {
    ...(e.hashtags.length ? { hashtags: e.hashtags } : {}),
    ...(e.urls.length ? { urls: e.urls } : {}),
    ...(e.user_mentions.length ? { user_mentions: e.user_mentions } : {}),
  };
}

/* ---------------------------------------------------------------- media */

function mediaKey(m: SimMedia): string {
  return `${m.type === 'photo' ? 3 : m.type === 'animated_gif' ? 16 : 7}_${m.id}`;
}

function encodeMedia(m: SimMedia, postId: string, username: string, short: string, indices: [number, number]): Wire {
  const base = `https://pbs.twimg.com`;
  const thumb =
    m.type === 'photo'
      ? `${base}/media/${m.id}.jpg`
      : m.type === 'animated_gif'
        ? `${base}/tweet_video_thumb/${m.id}.jpg`
        : `${base}/ext_tw_video_thumb/${m.id}/pu/img/${m.id}.jpg`;
  const encoded: Wire = {
    display_url: `pic.x.com/${m.id.slice(-10)}`,
    expanded_url: `https://x.com/${username}/status/${postId}/${m.type === 'photo' ? 'photo' : 'video'}/1`,
    id_str: m.id,
    indices,
    media_key: mediaKey(m),
    media_url_https: thumb,
    type: m.type,
    url: short,
    original_info: { height: m.height, width: m.width },
    sizes: { large: { h: m.height, w: m.width, resize: 'fit' } },
  };
  if (m.type === 'animated_gif') {
    encoded.video_info = { aspect_ratio: [m.width, m.height], variants: [{ bitrate: 0, content_type: 'video/mp4', url: `https://video.twimg.com/tweet_video/${m.id}.mp4` }] };
  } else if (m.type === 'video') {
    const hls = { content_type: 'application/x-mpegURL', url: `https://video.twimg.com/ext_tw_video/${m.id}/pu/pl/${m.id}.m3u8` };
    const mp4 = (bitrate: number, w: number, h: number) => ({ bitrate, content_type: 'video/mp4', url: `https://video.twimg.com/ext_tw_video/${m.id}/pu/vid/${w}x${h}/${bitrate}.mp4` });
    // Variant order is not by bitrate on the real platform either.
    encoded.video_info = {
      aspect_ratio: [16, 9],
      duration_millis: m.durationMs,
      variants: m.streamOnly ? [hls] : [mp4(832000, 640, 360), hls, mp4(2176000, 1280, 720), mp4(256000, 480, 270)],
    };
  }
  return encoded;
}

/* ---------------------------------------------------------------- articles, cards */

function encodeArticleMedia(m: SimMedia): Wire {
  const info =
    m.type === 'photo'
      ? { __typename: 'ApiImage', original_img_url: `https://pbs.twimg.com/media/${m.id}.jpg`, original_img_width: m.width, original_img_height: m.height }
      : { __typename: 'ApiVideo', original_img_width: m.width, original_img_height: m.height, variants: [{ bitrate: 2176000, content_type: 'video/mp4', url: `https://video.twimg.com/amplify_video/${m.id}/vid/1280x720/a.mp4` }] };
  return { id: b64(`ApiMedia:${m.id}`), media_id: m.id, media_key: mediaKey(m), media_info: info };
}

export function encodeArticle(a: SimArticle, full: boolean): Wire {
  return {
    rest_id: a.id,
    id: b64(`ArticleEntity:${a.id}`),
    title: a.title,
    preview_text: a.previewText,
    ...(a.cover ? { cover_media: encodeArticleMedia(a.cover) } : {}),
    metadata: { first_published_at_secs: a.publishedAt },
    lifecycle_state: { modified_at_secs: a.updatedAt },
    ...(full
      ? {
          media_entities: a.media.map(encodeArticleMedia),
          content_state: { blocks: a.blocks, entityMap: a.entityMap },
        }
      : {}),
  };
}

function spaceCard(post: SimPost, short: string): Wire {
  return {
    rest_id: `card://${post.id}`,
    legacy: {
      binding_values: [
        { key: 'id', value: { string_value: post.spaceId, type: 'STRING' } },
        { key: 'card_url', value: { string_value: short, type: 'STRING' } },
      ],
      card_platform: { platform: { audience: { name: 'production' }, device: { name: 'Swift', version: '12' } } },
      name: '3691233323:audiospace',
      url: short,
    },
  };
}

/* ---------------------------------------------------------------- tweets */

export interface TweetEncodeOptions {
  /** Nested results (quoted, reposted) are encoded one level only, like the platform. */
  nested?: boolean;
  /** Article bodies (`content_state`) are sent only on a TweetDetail focal post. */
  fullArticle?: boolean;
}

/** A `tweet_results.result` for a post: a Tweet, or TweetUnavailable when the author hides it. */
export function encodeTweetResult(world: MicroblogWorld, post: SimPost, opts: TweetEncodeOptions = {}): Wire {
  const hidden = hiddenReason(world, post);
  if (hidden) return { __typename: 'TweetUnavailable', reason: hidden };
  return encodeTweet(world, post, opts);
}

function editControl(world: MicroblogWorld, post: SimPost): Wire {
  const initial = world.posts.get(post.editIds[0]) ?? post;
  const control = {
    edit_tweet_ids: post.editIds,
    editable_until_msecs: String(initial.createdAt + 3_600_000),
    edits_remaining: String(Math.max(0, 6 - post.editIds.length)),
    is_edit_eligible: post.media.length === 0,
  };
  return post.editIds[0] === post.id ? control : { initial_tweet_id: post.editIds[0], edit_control_initial: control };
}

function encodeTweet(world: MicroblogWorld, post: SimPost, opts: TweetEncodeOptions): Wire {
  const author = world.users.get(post.authorId)!;
  const original = post.repostOfId ? world.posts.get(post.repostOfId) : undefined;
  const legacy: Wire = {
    bookmark_count: post.bookmarkCount,
    bookmarked: false,
    conversation_id_str: post.conversationId,
    created_at: formatClassicDate(post.createdAt),
    favorite_count: post.likeCount,
    favorited: false,
    id_str: post.id,
    is_quote_status: Boolean(post.quotedId),
    lang: post.lang,
    quote_count: world.quoteCount(post),
    reply_count: post.replyCount,
    retweet_count: original ? world.repostCount(original) : world.repostCount(post),
    retweeted: false,
    user_id_str: author.id,
  };
  const tweet: Wire = {
    __typename: 'Tweet',
    rest_id: post.id,
    core: { user_results: { result: encodeUser(world, author) } },
    edit_control: editControl(world, post),
    is_translatable: false,
    views: original ? { state: 'Enabled' } : { count: String(post.viewCount), state: 'EnabledWithCount' },
    source: '<a href="https://mobile.x.com" rel="nofollow">Sim Web App</a>',
    legacy,
  };
  if (post.editIds[0] !== post.id) {
    const first = world.posts.get(post.editIds[0]);
    if (first) tweet.previous_counts = { bookmark_count: 0, favorite_count: first.likeCount, quote_count: 0, reply_count: 0, retweet_count: 0 };
  }

  let plain = post.text;
  if (original) {
    const originalAuthor = world.users.get(original.authorId)!;
    const full = `RT @${originalAuthor.username}: ${original.text}`;
    plain = cpLength(full) > 140 ? `${Array.from(full).slice(0, 139).join('')}…` : full;
    if (!opts.nested) legacy.retweeted_status_result = { result: encodeTweetResult(world, original, { nested: false }) };
  }
  if (post.inReplyToId) {
    const parent = world.posts.get(post.inReplyToId);
    const parentAuthor = parent ? world.users.get(parent.authorId) : undefined;
    legacy.in_reply_to_status_id_str = post.inReplyToId;
    if (parentAuthor) {
      legacy.in_reply_to_user_id_str = parentAuthor.id;
      legacy.in_reply_to_screen_name = parentAuthor.username;
    }
  }

  const long = !original && cpLength(plain) > NOTE_LIMIT;
  const escaped = encodeText(world, plain, true);
  let visible = escaped;
  if (long) {
    // full_text is cut; the whole text travels unescaped in note_tweet with its own entity indices.
    const cut = Array.from(escaped.text).slice(0, NOTE_PREVIEW).join('');
    const kept = (list: Entity[]) => list.filter((e) => e.indices[1] <= NOTE_PREVIEW);
    visible = { text: `${cut}…`, hashtags: kept(escaped.hashtags), urls: kept(escaped.urls), user_mentions: kept(escaped.user_mentions), length: NOTE_PREVIEW };
    const note = encodeText(world, plain, false);
    tweet.note_tweet = {
      is_expandable: true,
      note_tweet_results: {
        result: {
          id: b64(`NoteTweet:${post.id}`),
          text: note.text,
          entity_set: { hashtags: note.hashtags, symbols: [], urls: note.urls, user_mentions: note.user_mentions },
          richtext: { richtext_tags: [] },
          media: { inline_media: [] },
        },
      },
    };
  }
  let fullText = visible.text;
  const displayEnd = long ? NOTE_PREVIEW : visible.length;
  const entities = entitiesOf(visible);
  const media = original ? original.media : post.media;
  if (media.length > 0) {
    const mediaShort = tco(`media:${post.id}`);
    const start = cpLength(fullText) + 1;
    const indices: [number, number] = [start, start + cpLength(mediaShort)];
    fullText += ` ${mediaShort}`;
    const encodedMedia = media.map((m) => encodeMedia(m, original?.id ?? post.id, author.username, mediaShort, indices));
    entities.media = encodedMedia;
    legacy.extended_entities = { media: encodedMedia };
  }
  if (post.quotedId) {
    const quoted = world.posts.get(post.quotedId);
    const quotedAuthor = quoted ? world.users.get(quoted.authorId) : undefined;
    legacy.quoted_status_id_str = post.quotedId;
    if (quotedAuthor) {
      const link = `https://x.com/${quotedAuthor.username}/status/${post.quotedId}`;
      legacy.quoted_status_permalink = { url: tco(link), expanded: link, display: link.replace('https://', '').slice(0, 26) };
    }
    // One level only: a quoted post's own quote is not expanded.
    if (quoted && !quoted.deleted && !opts.nested) tweet.quoted_status_result = { result: encodeTweetResult(world, quoted, { nested: true }) };
  }
  if (post.articleId) {
    const article = world.articles.get(post.articleId);
    if (article) tweet.article = { article_results: { result: encodeArticle(article, Boolean(opts.fullArticle)) } };
  }
  if (post.spaceId) tweet.card = spaceCard(post, tco(`space:${post.spaceId}`));
  legacy.full_text = fullText;
  legacy.display_text_range = [post.inReplyToId ? leadingMentionsLength(plain) : 0, displayEnd];
  legacy.entities = entities;
  return tweet;
}

/** Replies start with the auto-inserted `@handle ` mentions that display_text_range skips. */
function leadingMentionsLength(plain: string): number {
  const m = /^(@[A-Za-z0-9_]+\s+)+/.exec(plain);
  return m ? cpLength(m[0]) : 0;
}

/* ---------------------------------------------------------------- lists, spaces */

export function encodeList(world: MicroblogWorld, list: SimList): Wire {
  const owner = world.users.get(list.ownerId);
  return {
    id: b64(`List:${list.id}`),
    id_str: list.id,
    name: list.name,
    description: list.description,
    created_at: list.createdAt,
    member_count: list.memberIds.length,
    subscriber_count: list.subscriberCount,
    mode: list.private ? 'Private' : 'Public',
    ...(owner ? { user_results: { rest_id: owner.id, result: encodeUser(world, owner) } } : {}),
  };
}

function participant(world: MicroblogWorld, userId: string, start: number | null): Wire {
  const u = world.users.get(userId)!;
  return {
    periscope_user_id: `1${u.id.slice(-12)}`,
    start,
    twitter_screen_name: u.username,
    display_name: u.name,
    avatar_url: u.avatarUrl,
    is_verified: u.verifiedType !== 'none',
    is_muted_by_admin: false,
    is_muted_by_guest: true,
    user_results: { rest_id: u.id, result: { __typename: 'User', is_blue_verified: u.verifiedType !== 'none' } },
  };
}

export function encodeSpace(world: MicroblogWorld, s: SimSpace): Wire {
  return {
    metadata: {
      rest_id: s.id,
      state: s.state,
      title: s.title,
      media_key: `28_${s.id}`,
      created_at: s.createdAt,
      ...(s.scheduledStart !== null ? { scheduled_start: s.scheduledStart } : {}),
      ...(s.startedAt !== null ? { started_at: s.startedAt } : {}),
      ...(s.endedAt !== null ? { ended_at: String(s.endedAt) } : {}),
      updated_at: s.endedAt ?? s.startedAt ?? s.createdAt,
      language: s.lang,
      is_space_available_for_replay: s.recorded,
      total_live_listeners: s.state === 'Running' ? s.participantCount : 0,
      total_replay_watched: s.recorded ? 120 : 0,
      creator_results: { result: encodeUser(world, world.users.get(s.hostIds[0])!) },
    },
    participants: {
      total: s.participantCount,
      admins: s.hostIds.map((id) => participant(world, id, s.startedAt)),
      speakers: s.speakerIds.map((id) => participant(world, id, s.startedAt)),
      listeners: [],
    },
    sharings: { items: [], slice_info: {} },
  };
}
