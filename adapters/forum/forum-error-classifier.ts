import { UpstreamError, type NotPublicReason } from '../upstream/upstream-error.ts';
import type { ErrorBody } from './forum-wire.ts';

const REASONS: Record<string, NotPublicReason> = {
  private: 'private',
  banned: 'banned',
  quarantined: 'quarantined',
  gold_only: 'gold_only',
  restricted: 'restricted',
};

/**
 * Decides not-found vs not-public the way the platform answers: a private or quarantined community is a 403
 * with `reason`; a banned one is a 404 with `reason: "banned"`; a plain 404, or the 302 to the community
 * search it sends for unknown names, is not found. Returns undefined for a success.
 */
export function classifyForumResponse(status: number, body: unknown, what: string): UpstreamError | undefined {
  if (status >= 200 && status < 300) return undefined;
  const reason = typeof (body as ErrorBody | null)?.reason === 'string' ? (body as ErrorBody).reason! : undefined;
  const known = reason ? REASONS[reason] : undefined;
  if (status === 404) {
    return known ? notPublic(what, known, status) : new UpstreamError('not_found', 'forum', `${what} not found`, { status });
  }
  if (status >= 300 && status < 400) return new UpstreamError('not_found', 'forum', `${what} not found`, { status });
  if (status === 403) {
    // The platform's own 403s are JSON; an HTML 403 is a block in front of it (bad credentials, user agent).
    if (typeof body !== 'object' || body === null) return new UpstreamError('unavailable', 'forum', `forum refused the request for ${what}`, { status });
    return notPublic(what, known ?? 'private', status);
  }
  if (status === 451) return notPublic(what, 'withheld', status);
  return new UpstreamError('unavailable', 'forum', `forum answered ${status} for ${what}`, { status });
}

function notPublic(what: string, reason: NotPublicReason, status: number): UpstreamError {
  return new UpstreamError('not_public', 'forum', `${what} is not publicly readable (${reason})`, { reason, status });
}

/** Why a community returned in a listing is still not publicly readable, or undefined when it is. */
export function subforumNotPublicReason(sub: { subforumType: string; quarantine: boolean }): NotPublicReason | undefined {
  if (sub.quarantine) return 'quarantined';
  if (sub.subforumType === 'private' || sub.subforumType === 'employees_only') return 'private';
  if (sub.subforumType === 'gold_restricted' || sub.subforumType === 'gold_only') return 'gold_only';
  return undefined;
}
