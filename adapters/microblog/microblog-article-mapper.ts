import type { Article, ArticleBlock, ArticleEntity, ArticleMedia } from '../shapes/microblog-shapes.ts';
import { renderArticleMarkdown, renderArticleText } from './microblog-article-render.ts';
import { mapArticleMedia } from './microblog-media-mapper.ts';
import { isAvailableUser, mapAuthor, userUsername } from './microblog-user-mapper.ts';
import { codePointRangeToUtf16, epochToIso } from './microblog-text.ts';
import { MICROBLOG_SITE_URL, postUrl, type WireArticle, type WireDraftBlock, type WireDraftEntity, type WireTweet } from './wire.ts';

/**
 * `T.article.article_results.result` → Article (FIELD-NOTES 2.7). The body is Draft.js content: `blocks[]` with
 * code-point ranges and an `entityMap` that is an ARRAY of `{key, value}` (an object in stock Draft.js; both read).
 */

function entityLookup(entityMap: NonNullable<WireArticle['content_state']>['entityMap']): Map<string, WireDraftEntity> {
  const map = new Map<string, WireDraftEntity>();
  if (Array.isArray(entityMap)) for (const e of entityMap) map.set(String(e.key), e.value);
  else if (entityMap && typeof entityMap === 'object') for (const [k, v] of Object.entries(entityMap)) map.set(k, v);
  return map;
}

function withScheme(url: string): string {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(url) ? url : `https://${url}`;
}

function mapEntity(value: WireDraftEntity | undefined, text: string, offset: number, length: number): ArticleEntity {
  const data = value?.data ?? {};
  const upstreamType = String(value?.type ?? 'UNKNOWN');
  // The platform calls an embedded post TWEET; the spec's name is POST.
  const type = upstreamType === 'TWEET' ? 'POST' : upstreamType;
  const mediaItems = Array.isArray(data.mediaItems) ? data.mediaItems : [];
  return {
    ...codePointRangeToUtf16(text, offset, length),
    type,
    url: typeof data.url === 'string' ? data.url : null,
    mediaIds: mediaItems.map((m) => String(m.mediaId ?? m.media_id ?? m.localMediaId ?? '')).filter((id) => id !== ''),
    postId: data.tweetId !== undefined ? String(data.tweetId) : data.postId !== undefined ? String(data.postId) : null,
    markdown: typeof data.markdown === 'string' ? data.markdown : null,
  };
}

export function mapArticleBlock(block: WireDraftBlock, entities: Map<string, WireDraftEntity>): ArticleBlock {
  const text = String(block.text ?? '');
  const styles = (block.inlineStyleRanges ?? []).map((s) => ({
    ...codePointRangeToUtf16(text, s.offset, s.length),
    style: String(s.style),
  }));
  const ranged: ArticleEntity[] = (block.entityRanges ?? []).map((r) =>
    mapEntity(entities.get(String(r.key)), text, r.offset, r.length),
  );
  // Plain URLs typed into the text are listed in `data.urls` rather than as LINK entities; expose them as LINKs.
  const plainLinks: ArticleEntity[] = (block.data?.urls ?? []).map((u) => ({
    ...codePointRangeToUtf16(text, u.fromIndex, u.toIndex - u.fromIndex),
    type: 'LINK',
    url: withScheme(String(u.text)),
    mediaIds: [],
    postId: null,
    markdown: null,
  }));
  return {
    type: String(block.type ?? 'unstyled'),
    text,
    depth: typeof block.depth === 'number' && Number.isInteger(block.depth) && block.depth > 0 ? block.depth : 0,
    styles,
    entities: [...ranged, ...plainLinks].sort((a, b) => a.offset - b.offset),
  };
}

/** `full` is false in lists of posts: only the preview is sent there, so text, markdown and blocks are null. */
export function mapArticle(a: WireArticle, tweet: WireTweet, full: boolean): Article {
  const author = tweet.core?.user_results?.result;
  if (!isAvailableUser(author)) throw new TypeError(`Article ${a.rest_id}: the carrying post's author is unavailable`);
  const content = a.content_state;
  const media: ArticleMedia[] = full ? (a.media_entities ?? []).map(mapArticleMedia) : [];
  const coverImage = a.cover_media ? mapArticleMedia(a.cover_media) : null;
  let blocks: ArticleBlock[] | null = null;
  if (full && content) {
    const entities = entityLookup(content.entityMap);
    blocks = (content.blocks ?? []).map((b) => mapArticleBlock(b, entities));
  }
  const postId = String(tweet.rest_id);
  return {
    id: String(a.rest_id),
    url: `${MICROBLOG_SITE_URL}/i/article/${a.rest_id}`,
    title: String(a.title ?? ''),
    previewText: a.preview_text ?? null,
    coverImage,
    publishedAt: epochToIso(a.metadata?.first_published_at_secs, 's'),
    updatedAt: epochToIso(a.lifecycle_state?.modified_at_secs, 's'),
    text: blocks ? renderArticleText(blocks) : null,
    markdown: blocks ? renderArticleMarkdown(blocks, media, coverImage) : null,
    blocks,
    media,
    postId,
    postUrl: postUrl(userUsername(author), postId),
    author: mapAuthor(author),
  };
}
