import type { MicroblogList } from '../shapes/microblog-shapes.ts';
import { epochToIso } from './microblog-text.ts';
import { isAvailableUser, mapAuthor } from './microblog-user-mapper.ts';
import { MICROBLOG_SITE_URL, toCount, type WireList } from './wire.ts';

/**
 * `ListByRestId` → `data.list` (FIELD-NOTES 2.10, unverified: no public recording). Read: `id_str`, `name`,
 * `description`, `created_at` (epoch ms), `member_count`, `subscriber_count`, `mode`, `user_results.result` (owner).
 */
export function isPrivateList(list: WireList | undefined): boolean {
  return String(list?.mode ?? 'Public').toLowerCase() === 'private';
}

export function mapList(list: WireList): MicroblogList {
  const ownerResult = list.user_results?.result;
  const owner = isAvailableUser(ownerResult) ? mapAuthor(ownerResult) : null;
  const id = String(list.id_str ?? list.rest_id);
  return {
    id,
    name: String(list.name ?? ''),
    description: typeof list.description === 'string' && list.description !== '' ? list.description : null,
    url: `${MICROBLOG_SITE_URL}/i/lists/${id}`,
    createdAt: epochToIso(list.created_at, 'ms') ?? new Date(0).toISOString(),
    memberCount: toCount(list.member_count) ?? 0,
    subscriberCount: toCount(list.subscriber_count) ?? 0,
    ownerId: String(owner?.id ?? ownerResult?.rest_id ?? list.user_results?.rest_id ?? ''),
    owner,
  };
}
