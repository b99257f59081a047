import type { Subforum } from '../shapes/forum-shapes.ts';
import type { T5Data } from './forum-wire.ts';
import { absoluteUrl, DEFAULT_FORUM_SITE_URL, epochToIso, nonEmpty, requireNumber, requireString } from './forum-field-rules.ts';

/**
 * Maps a `t5` Thing's data to the spec's subforum. Private communities seen through search or `/api/info`
 * carry `null` counters and flags; those read as 0 / false, and callers treat such communities as not public.
 */
export function mapSubforum(data: T5Data, siteUrl: string = DEFAULT_FORUM_SITE_URL): Subforum {
  const name = requireString(data.display_name, 't5.display_name');
  const createdUtc = requireNumber(data.created_utc, 't5.created_utc');
  const fullname = data.name ?? (data.id ? `t5_${data.id}` : undefined);
  return {
    id: requireString(fullname, 't5.name'),
    name,
    title: data.title ?? '',
    description: nonEmpty(data.public_description),
    url: absoluteUrl(siteUrl, data.url ?? `/r/${name}/`),
    subscribers: Math.max(0, data.subscribers ?? 0),
    over18: data.over18 === true,
    createdUtc,
    createdAt: epochToIso(createdUtc),
    subforumType: data.subreddit_type ?? 'public',
    submissionType: data.submission_type ?? null,
    lang: nonEmpty(data.lang),
    quarantine: data.quarantine === true,
    // `community_icon` is the new-design icon; `icon_img` is the only one in older payloads.
    communityIcon: nonEmpty(data.community_icon) ?? nonEmpty(data.icon_img),
    bannerImg: nonEmpty(data.banner_img),
  };
}
