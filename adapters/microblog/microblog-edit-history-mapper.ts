import type { EditHistory, MicroblogPost } from '../shapes/microblog-shapes.ts';
import { epochToIso } from './microblog-text.ts';
import { unwrapTweet } from './microblog-post-mapper.ts';
import { toCount, type WireEditControl, type WireTweetResult } from './wire.ts';

/**
 * `edit_control` comes in two forms (FIELD-NOTES 2.8): on an original `{edit_tweet_ids, editable_until_msecs,
 * edits_remaining, is_edit_eligible}`; on an edited version `{initial_tweet_id, edit_control_initial: {…}}`.
 */
export function editControlOf(result: WireTweetResult | null | undefined): WireEditControl | null {
  const t = unwrapTweet(result);
  const ec = t?.edit_control;
  if (!ec) return null;
  return ec.edit_control_initial ?? ec;
}

/** Every version id, oldest first (just the post itself when it carries no edit control). */
export function editVersionIds(result: WireTweetResult | null | undefined): string[] {
  const t = unwrapTweet(result);
  const ids = editControlOf(result)?.edit_tweet_ids;
  return Array.isArray(ids) && ids.length > 0 ? ids.map(String) : t ? [String(t.rest_id)] : [];
}

/** `versions` are the posts the platform returned for `editVersionIds`, in any order. */
export function mapEditHistory(postId: string, result: WireTweetResult | null | undefined, versions: MicroblogPost[]): EditHistory {
  const ec = editControlOf(result);
  const ids = editVersionIds(result);
  const byId = new Map(versions.map((v) => [v.id, v]));
  return {
    postId,
    initialPostId: ids[0] ?? postId,
    latestPostId: ids[ids.length - 1] ?? postId,
    editPostIds: ids,
    editableUntil: epochToIso(ec?.editable_until_msecs, 'ms'),
    editsRemaining: toCount(ec?.edits_remaining),
    isEditEligible: typeof ec?.is_edit_eligible === 'boolean' ? ec.is_edit_eligible : null,
    versions: ids.flatMap((id) => (byId.has(id) ? [byId.get(id)!] : [])),
  };
}
