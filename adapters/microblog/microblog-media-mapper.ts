import type { ArticleMedia, MicroblogMedia } from '../shapes/microblog-shapes.ts';
import type { WireArticleMedia, WireTweetLegacy, WireTweetMedia, WireVideoVariant } from './wire.ts';

/** Highest-bitrate MP4 of a `video_info`; the HLS variant carries no bitrate and a GIF's one MP4 has bitrate 0. */
export function bestMp4(variants: WireVideoVariant[] | undefined): string | null {
  let best: { url: string; bitrate: number } | null = null;
  for (const v of variants ?? []) {
    if (v?.content_type !== 'video/mp4' || typeof v.url !== 'string') continue;
    const bitrate = typeof v.bitrate === 'number' ? v.bitrate : 0;
    if (!best || bitrate > best.bitrate) best = { url: v.url, bitrate };
  }
  return best?.url ?? null;
}

/** One `extended_entities.media[]` element. */
export function mapTweetMedia(m: WireTweetMedia): MicroblogMedia {
  // Any other kind is passed on as the platform names it; the shape tests catch a new one.
  const type = String(m.type) as MicroblogMedia['type'];
  if (type === 'photo') return { id: String(m.id_str), type, url: m.media_url_https ?? null, previewImageUrl: null };
  return {
    id: String(m.id_str),
    type,
    url: bestMp4(m.video_info?.variants),
    // The spec gives GIFs no poster frame; for video `media_url_https` is the thumbnail.
    previewImageUrl: type === 'video' ? (m.media_url_https ?? null) : null,
  };
}

export function tweetMediaList(legacy: WireTweetLegacy): MicroblogMedia[] {
  const media = legacy?.extended_entities?.media ?? legacy?.entities?.media ?? [];
  return media.map(mapTweetMedia);
}

const ARTICLE_MEDIA_TYPES: Record<string, ArticleMedia['type']> = { ApiImage: 'photo', ApiVideo: 'video', ApiGif: 'animated_gif' };

/** Article cover / body media (`cover_media`, `media_entities[]`): `{media_id, media_key, media_info}`. */
export function mapArticleMedia(m: WireArticleMedia): ArticleMedia {
  const info = m.media_info ?? {};
  const keyPrefix = String(m.media_key ?? '').split('_')[0];
  const type = (ARTICLE_MEDIA_TYPES[info.__typename ?? ''] ?? (keyPrefix === '16' ? 'animated_gif' : keyPrefix === '3' ? 'photo' : 'video')) as ArticleMedia['type'];
  const url = type === 'photo' ? (info.original_img_url ?? null) : bestMp4(info.variants ?? info.video_info?.variants);
  const width = info.original_img_width ?? info.width;
  const height = info.original_img_height ?? info.height;
  return {
    id: String(m.media_id ?? String(m.media_key ?? '').split('_')[1] ?? ''),
    type,
    url,
    width: typeof width === 'number' && Number.isInteger(width) ? width : null,
    height: typeof height === 'number' && Number.isInteger(height) ? height : null,
  };
}
