import { UpstreamError, type NotPublicReason } from '../upstream/upstream-error.ts';
import type { UpstreamResponse } from '../upstream/http-client.ts';
import type { WireBody, WireError } from './wire.ts';

/**
 * Turns the microblog's failure signals into the typed UpstreamError set. GraphQL errors arrive with HTTP 200 (or
 * 400) as top-level `errors[]{message, code, kind, name}` beside `data: {}` (SearchTimeline-error-query-too-long.json).
 */

/** Error codes the platform uses for "this id does not exist" (144 no status, 50 user not found, 34 no page). */
const NOT_FOUND_CODES = new Set([144, 50, 34, 8]);
const SUSPENDED_CODES = new Set([63]);

/**
 * Operations whose variables carry what the client typed, and the request member a refusal of them names. Other
 * operations send only validated ids, so a refusal of theirs is not the client's to fix and stays `unavailable`.
 */
const CLIENT_INPUT: Record<string, (message: string) => string> = {
  // A refused cursor ("Unknown request cursor") is the cursor's fault; too long, empty or denylisted, the query's.
  SearchTimeline: (message) => (/cursor/i.test(message) ? 'cursor' : 'query'),
};

/** The platform's own validation refusal: `BadRequestError` from source `Client` (code 214, "BadRequest: …"). */
function isClientRefusal(error: WireError): boolean {
  const source = error.source ?? error.extensions?.source;
  const name = error.name ?? error.extensions?.name;
  return source === 'Client' || name === 'BadRequestError' || /^BadRequest\b/.test(error.message ?? '');
}

export function graphqlErrors(body: WireBody | undefined): WireError[] {
  return Array.isArray(body?.errors) ? body.errors : [];
}

/** Throws for transport-level statuses and for errors that left no data; returns the body otherwise. */
export function checkResponse(res: UpstreamResponse, operation: string): WireBody {
  // JSON from the platform: read through optional members only, so any shape is safe to read.
  const body = res.body as WireBody;
  if (res.status === 404) throw new UpstreamError('not_found', 'microblog', `${operation}: 404`, { status: 404 });
  const errors = graphqlErrors(body);
  const hasData = body?.data && typeof body.data === 'object' && Object.keys(body.data).length > 0;
  if (errors.length > 0 && !hasData) {
    const first = errors[0];
    const code = first.code ?? first.extensions?.code;
    if ((code !== undefined && NOT_FOUND_CODES.has(code)) || /not found|no status found|_Missing/i.test(first.message ?? '')) {
      throw new UpstreamError('not_found', 'microblog', `${operation}: ${first.message}`, { status: res.status });
    }
    if (code !== undefined && SUSPENDED_CODES.has(code)) {
      throw new UpstreamError('not_public', 'microblog', `${operation}: ${first.message}`, { reason: 'suspended', status: res.status });
    }
    const input = CLIENT_INPUT[operation];
    if (input && isClientRefusal(first)) {
      const field = input(first.message ?? '');
      throw new UpstreamError('refused', 'microblog', `The platform refused the ${field}: ${first.message ?? 'bad request'}`, { field, status: res.status });
    }
    throw new UpstreamError('unavailable', 'microblog', `${operation} failed: ${first.message}`, { status: res.status });
  }
  if (res.status >= 400) {
    throw new UpstreamError('unavailable', 'microblog', `${operation}: upstream answered ${res.status}`, { status: res.status });
  }
  return body;
}

const USER_REASONS: Record<string, NotPublicReason> = {
  Suspended: 'suspended',
  Protected: 'protected',
  Deactivated: 'deactivated',
  Withheld: 'withheld',
  GeoWithheld: 'withheld',
};

/** A `UserUnavailable` result as an error: suspended/protected/… are not public; anything else does not exist. */
export function userUnavailableError(reason: string, who: string): UpstreamError {
  const mapped = USER_REASONS[reason];
  return mapped
    ? new UpstreamError('not_public', 'microblog', `account ${who} is ${mapped}`, { reason: mapped })
    : new UpstreamError('not_found', 'microblog', `account ${who} not found (${reason})`);
}

/** A tombstoned or unavailable post as an error. */
export function tweetUnavailableError(reason: string, id: string): UpstreamError {
  const mapped = USER_REASONS[reason];
  return mapped
    ? new UpstreamError('not_public', 'microblog', `post ${id}: author ${mapped}`, { reason: mapped })
    : new UpstreamError('not_found', 'microblog', `post ${id} not available (${reason})`);
}

/** Anything unexpected while reading a body becomes `unavailable`: a raw exception never leaves a client. */
export function asUpstreamError(error: unknown, operation: string): UpstreamError {
  if (error instanceof UpstreamError) return error;
  return new UpstreamError('invalid', 'microblog', `${operation}: unreadable response (${(error as Error)?.message ?? String(error)})`, {
    cause: error,
  });
}
