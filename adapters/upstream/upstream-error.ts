/**
 * The small typed set of failures an upstream call can end in. Clients throw only these; the pipeline maps
 * them to the service's error catalogue (not_found → 404, not_public → 404 with reason, unavailable → 503,
 * invalid → 503 `upstream_invalid`: the platform answered, but in a form the service cannot read — its format
 * changed — which needs a fix, not only a retry).
 */
export type UpstreamErrorKind = 'not_found' | 'not_public' | 'unavailable' | 'invalid';

export type NotPublicReason =
  | 'private'
  | 'banned'
  | 'quarantined'
  | 'restricted'
  | 'gold_only'
  | 'protected'
  | 'suspended'
  | 'withheld'
  | 'deactivated'
  | 'unavailable';

export class UpstreamError extends Error {
  readonly kind: UpstreamErrorKind;
  readonly platform: 'forum' | 'microblog';
  readonly reason?: NotPublicReason;
  /** For `unavailable`: the last HTTP status seen, if any, and why. */
  readonly status?: number;

  constructor(
    kind: UpstreamErrorKind,
    platform: 'forum' | 'microblog',
    message: string,
    options: { reason?: NotPublicReason; status?: number; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'UpstreamError';
    this.kind = kind;
    this.platform = platform;
    this.reason = options.reason;
    this.status = options.status;
  }
}
