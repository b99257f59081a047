import type { AboutDetails, MicroblogAuthor, MicroblogProfile } from '../shapes/microblog-shapes.ts';
import { epochToIso, expandLinks, parseClassicDate } from './microblog-text.ts';
import { profileUrl, toCount, type WireUser, type WireUserLegacy, type WireUserResult } from './wire.ts';

/**
 * Users come in three shapes over time (FIELD-NOTES 2.6): legacy (everything in `legacy`), transitional (`core`,
 * `avatar`, `privacy` plus counters still in `legacy`) and 2026 (no `legacy`). Every read tries the new location
 * first and falls back to `legacy`.
 */

/** `UserUnavailable` (suspended, deactivated, …) or an empty slot: the reason, or null for a real user. */
export function unavailableUserReason(result: WireUserResult | null | undefined): string | null {
  if (!result || typeof result !== 'object' || !result.rest_id) return String(result?.reason ?? 'Unavailable');
  if (result.__typename && result.__typename !== 'User') return String(result.reason ?? result.__typename);
  return null;
}

/** A result that is a user (not `UserUnavailable`, not an empty slot). */
export function isAvailableUser(result: WireUserResult | null | undefined): result is WireUser {
  return unavailableUserReason(result) === null;
}

function legacyOf(u: WireUserResult): WireUserLegacy {
  return u.legacy ?? {};
}

export function userUsername(u: WireUserResult): string {
  return u.core?.screen_name ?? legacyOf(u).screen_name ?? '';
}

function userName(u: WireUserResult): string {
  return u.core?.name ?? legacyOf(u).name ?? '';
}

function userVerified(u: WireUserResult): boolean {
  const l = legacyOf(u);
  return Boolean(
    u.is_blue_verified || u.verification?.verified || u.verification?.verified_type || l.verified || l.verified_type,
  );
}

function userFollowers(u: WireUserResult): number {
  return toCount(u.relationship_counts?.followers ?? legacyOf(u).followers_count) ?? 0;
}

function userAvatar(u: WireUserResult): string | null {
  return u.avatar?.image_url ?? legacyOf(u).profile_image_url_https ?? null;
}

export function userProtected(u: WireUserResult): boolean {
  // 2024–2025 legacy objects normally omit the key: missing means public.
  return Boolean(u.privacy?.protected ?? legacyOf(u).protected ?? false);
}

function nonEmpty(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

/** The bio with its short links replaced by their targets, as post text is. */
function userDescription(u: WireUserResult): string | null {
  const bio = u.profile_bio?.description !== undefined ? u.profile_bio : legacyOf(u);
  return nonEmpty(expandLinks(bio.description ?? '', bio.entities?.description?.urls));
}

/** The account's own website: the short link's target, or the short link when no target came with it. */
function userWebsite(u: WireUserResult): string | null {
  const link = (u.profile_bio?.entities?.url ?? legacyOf(u).entities?.url)?.urls?.[0];
  return nonEmpty(link?.expanded_url) ?? nonEmpty(link?.url) ?? nonEmpty(u.website?.url) ?? nonEmpty(legacyOf(u).url);
}

export function mapAuthor(u: WireUser): MicroblogAuthor {
  return {
    id: String(u.rest_id),
    username: userUsername(u),
    name: userName(u),
    verified: userVerified(u),
    followersCount: userFollowers(u),
    profileImageUrl: userAvatar(u),
  };
}

export function mapProfile(u: WireUser): MicroblogProfile {
  const l = legacyOf(u);
  const username = userUsername(u);
  const pinned = u.pinned_items?.tweet_ids_str ?? l.pinned_tweet_ids_str ?? [];
  const createdAt = u.core?.created_at ?? l.created_at;
  return {
    id: String(u.rest_id),
    username,
    name: userName(u),
    description: userDescription(u),
    url: profileUrl(username),
    website: userWebsite(u),
    profileImageUrl: userAvatar(u),
    profileBannerUrl: nonEmpty(u.banner?.image_url ?? l.profile_banner_url),
    location: nonEmpty(u.location?.location ?? l.location),
    verified: userVerified(u),
    followersCount: userFollowers(u),
    followingCount: toCount(u.relationship_counts?.following ?? l.friends_count) ?? 0,
    statusesCount: toCount(u.tweet_counts?.tweets ?? l.statuses_count) ?? 0,
    likeCount: toCount(u.action_counts?.favorites_count ?? l.favourites_count) ?? 0,
    createdAt: parseClassicDate(createdAt),
    pinnedPostIds: Array.isArray(pinned) ? pinned.map(String) : [],
    protected: userProtected(u),
  };
}

/** `AboutAccountQuery` → about details (FIELD-NOTES 2.9). */
export function mapAboutDetails(r: WireUser): AboutDetails {
  const about = r.about_profile;
  const info = r.verification_info;
  const protectedFlag = r.privacy?.protected ?? r.legacy?.protected;
  return {
    id: String(r.rest_id),
    username: userUsername(r),
    name: userName(r),
    createdAt: parseClassicDate(r.core?.created_at ?? r.legacy?.created_at),
    profileImageUrl: userAvatar(r),
    profileImageShape: r.profile_image_shape ?? null,
    verified: userVerified(r),
    protected: typeof protectedFlag === 'boolean' ? protectedFlag : null,
    aboutProfile: about
      ? {
          accountBasedIn: about.account_based_in ?? null,
          locationAccurate: typeof about.location_accurate === 'boolean' ? about.location_accurate : null,
          createdCountryAccurate:
            typeof about.created_country_accurate === 'boolean' ? about.created_country_accurate : null,
          source: about.source ?? null,
          usernameChanges: {
            count: toCount(about.username_changes?.count),
            lastChangedAt: epochToIso(about.username_changes?.last_changed_at_msec, 'ms'),
          },
        }
      : null,
    verificationInfo: info
      ? {
          isIdentityVerified: typeof info.is_identity_verified === 'boolean' ? info.is_identity_verified : null,
          verifiedSince: epochToIso(info.reason?.verified_since_msec, 'ms'),
        }
      : null,
  };
}
