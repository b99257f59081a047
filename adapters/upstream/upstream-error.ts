/**
 * The small typed set of failures an upstream call can end in. Clients throw only these; the pipeline maps
 * them to the service's error catalogue (not_found → 404, not_public → 404 with reason, unavailable → 503,
 * invalid → 503 `upstream_invalid`: the platform answered, but in a form the service cannot read — its format
 * changed — which needs a fix, not only a retry; refused → 400: the platform refused what the client asked for as
 * invalid, so only a changed request can succeed).
 */
export type UpstreamErrorKind = 'not_found' | 'not_public' | 'unavailable' | 'invalid' | 'refused';

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
  /** For `refused`: the request member the platform refused. */
  readonly field?: string;

  constructor(
    kind: UpstreamErrorKind,
    platform: 'forum' | 'microblog',
    message: string,
    options: { reason?: NotPublicReason; status?: number; field?: string; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'UpstreamError';
    this.kind = kind;
    this.platform = platform;
    this.reason = options.reason;
    this.status = options.status;
    this.field = options.field;
  }
}
