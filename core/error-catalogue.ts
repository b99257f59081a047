import { GraphQLError } from 'graphql';

/**
 * The closed set of `error.code` values. Every error the service returns carries one of these codes,
 * with the HTTP status and `retryable` flag fixed here, so all three surfaces agree.
 */
export const ERROR_CATALOGUE = {
  invalid_request: { status: 400, retryable: false, message: 'The request failed validation.' },
  invalid_json: { status: 400, retryable: false, message: 'The request body is not valid JSON.' },
  invalid_cursor: { status: 400, retryable: false, message: 'The cursor is malformed, tampered with, or belongs to another request.' },
  query_too_costly: { status: 400, retryable: false, message: 'The query can cost more than the ceiling allows per request.' },
  unsupported_link: { status: 400, retryable: false, message: 'The link carries no id that can be looked up.' },
  forbidden_destination: { status: 400, retryable: false, message: 'The URL is not a permitted destination.' },
  unauthenticated: { status: 401, retryable: false, message: 'The API key is missing, malformed, unknown, expired or revoked.' },
  insufficient_credits: { status: 402, retryable: false, message: 'The account is out of credit: a person must add credits; retrying will not help.' },
  spending_paused: { status: 402, retryable: false, message: 'Spending is paused on this account while a refund or payment dispute is resolved: a person must act; retrying will not help.' },
  insufficient_scope: { status: 403, retryable: false, message: 'The API key lacks a required scope.' },
  not_found: { status: 404, retryable: false, message: 'No such resource, or it is not public.' },
  method_not_allowed: { status: 405, retryable: false, message: 'The method is not allowed on this path.' },
  request_timeout: { status: 408, retryable: true, message: 'The request was not received in time; nothing ran.' },
  conflict: { status: 409, retryable: false, message: 'The request conflicts with the current state.' },
  payload_too_large: { status: 413, retryable: false, message: 'The request body is too large.' },
  unsupported_media_type: { status: 415, retryable: false, message: 'Request bodies must be application/json.' },
  rate_limited: { status: 429, retryable: true, message: 'The per-minute rate limit is exhausted.' },
  credits_held: { status: 429, retryable: true, message: "The account's remaining credits are held by its calls in flight." },
  internal_error: { status: 500, retryable: true, message: 'An unexpected error occurred.' },
  upstream_unavailable: { status: 503, retryable: true, message: 'A source was unreachable.' },
  upstream_invalid: { status: 503, retryable: true, message: 'A source answered in a form the service cannot read.' },
  not_ready: { status: 503, retryable: true, message: 'A required dependency is unavailable.' },
} as const satisfies Record<string, { status: number; retryable: boolean; message: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

/**
 * `conflict`s that clear by themselves (they come with `Retry-After`): the first request with the same
 * Idempotency-Key still running (`in_progress`), a monitor's schedule held by another change (`schedule_busy`).
 * Every other conflict waits for the client to change something.
 */
const RETRYABLE_REASONS: Partial<Record<ErrorCode, readonly string[]>> = { conflict: ['in_progress', 'schedule_busy'] };

/** The `retryable` flag of an error: its code's, or its reason's where the reason is retried and the code is not. */
export function isRetryable(code: ErrorCode, details?: Record<string, unknown>): boolean {
  return ERROR_CATALOGUE[code].retryable || (RETRYABLE_REASONS[code]?.includes(String(details?.reason)) ?? false);
}

export type ServiceErrorExtensions = {
  code: ErrorCode;
  retryable: boolean;
  http: { status: number; headers?: Record<string, string> };
  details?: Record<string, unknown>;
};

/** A domain error: a GraphQL error whose extensions carry the catalogue code, status and retryable flag. */
export class ServiceError extends GraphQLError {
  declare readonly extensions: ServiceErrorExtensions;

  constructor(
    code: ErrorCode,
    options: { message?: string; details?: Record<string, unknown>; headers?: Record<string, string> } = {},
  ) {
    const entry = ERROR_CATALOGUE[code];
    const extensions: ServiceErrorExtensions = {
      code,
      retryable: isRetryable(code, options.details),
      http: { status: entry.status, ...(options.headers ? { headers: options.headers } : {}) },
      ...(options.details ? { details: options.details } : {}),
    };
    super(options.message ?? entry.message, { extensions });
  }
}

export function isServiceError(error: unknown): error is ServiceError {
  if (!(error instanceof GraphQLError)) return false;
  const code = (error.extensions as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && code in ERROR_CATALOGUE;
}
