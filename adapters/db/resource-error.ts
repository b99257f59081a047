/**
 * Why a request on an account's own resources (monitors, webhooks, deliveries) was refused. The pipeline maps these
 * onto the error catalogue: `not_found` → 404 naming the resource, `limit` and `state` → 409 (`details.limit` names
 * the tier ceiling), `destination` → 400 naming `url`, `invalid` → 400 naming the field, `busy` → 429 (retryable:
 * what it waits for clears by itself) with `Retry-After` of `retryAfterSeconds`.
 */
export type ResourceErrorKind = 'not_found' | 'limit' | 'state' | 'destination' | 'invalid' | 'busy';

export class ResourceError extends Error {
  readonly kind: ResourceErrorKind;
  readonly details: Record<string, unknown>;
  readonly retryAfterSeconds: number | undefined;

  constructor(kind: ResourceErrorKind, message: string, details: Record<string, unknown> = {}, retryAfterSeconds?: number) {
    super(message);
    this.name = 'ResourceError';
    this.kind = kind;
    this.details = details;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}
