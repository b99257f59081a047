import { GraphQLError, type ASTNode } from 'graphql';
import { CreditsConflict, CreditsRefusal } from '../../adapters/billing/credits-refusal.ts';
import { IdentityError, type IdentityErrorKind } from '../../adapters/identity/identity-error.ts';
import { isDatabaseUnavailable } from '../../adapters/db/connection-error.ts';
import { logger } from '../../adapters/logging/logger.ts';
import { ResourceError, type ResourceErrorKind } from '../../adapters/db/resource-error.ts';
import { UpstreamError } from '../../adapters/upstream/upstream-error.ts';
import { ERROR_CATALOGUE, ServiceError, isRetryable, isServiceError, type ErrorCode } from '../../core/error-catalogue.ts';
import type { LiteralPlace } from './literal-places.ts';

/** GraphQL's own request errors that name a member of the request, and the name they give it (`details.field`). */
const NAMING_ERRORS = [
  /^Variable "\$([A-Za-z0-9_]+)"/,
  /^Field "[A-Za-z0-9_]+" argument "([A-Za-z0-9_]+)" of type "[^"]+" is required/,
  /^Unknown argument "([A-Za-z0-9_]+)"/,
  /^Cannot query field "([A-Za-z0-9_]+)"/,
];

/** Answers a platform sent that could not be read, since the process started: a format change shows here first. */
let upstreamInvalidTotal = 0;

function fromUpstream(error: UpstreamError): ServiceError {
  if (error.kind === 'unavailable') {
    logger.warn({ platform: error.platform, status: error.status, cause: String(error.cause ?? error.message) }, 'upstream unavailable');
    return new ServiceError('upstream_unavailable', { details: { platform: error.platform } });
  }
  if (error.kind === 'invalid') {
    upstreamInvalidTotal += 1;
    logger.error({ err: error, platform: error.platform, upstreamInvalidTotal }, 'upstream answer unreadable: the platform may have changed its format');
    return new ServiceError('upstream_invalid', { details: { platform: error.platform } });
  }
  if (error.kind === 'refused') {
    return new ServiceError('invalid_request', { message: error.message, details: { platform: error.platform, ...(error.field ? { field: error.field } : {}) } });
  }
  return new ServiceError('not_found', {
    details: error.kind === 'not_public' ? { platform: error.platform, reason: error.reason ?? 'unavailable' } : { platform: error.platform },
  });
}

function fromCreditsRefusal(error: CreditsRefusal): ServiceError {
  const details = {
    reason: error.code,
    balance: error.balance,
    available: error.available,
    ...(error.minimumCredits === undefined ? {} : { minimumCredits: error.minimumCredits }),
    ...(error.price === undefined ? {} : { price: error.price }),
  };
  // A result priced above what was left: the account is not empty, this answer is too dear for it.
  const message =
    error.code === 'insufficient_credits' && error.price !== undefined
      ? `This call's result costs ${error.price} credits and the account has ${error.available} available, so it was not given and nothing was charged: ask for fewer items (a smaller limit), or add credits.`
      : undefined;
  // The account's own calls in flight hold what is left: retry shortly.
  return new ServiceError(error.code, { details, ...(message ? { message } : {}), ...(error.code === 'credits_held' ? { headers: { 'retry-after': '1' } } : {}) });
}

const IDENTITY_ERROR_CODES: Record<IdentityErrorKind, ErrorCode> = {
  invalid_scope: 'invalid_request',
  invalid_expiry: 'invalid_request',
  invalid_label: 'invalid_request',
  unknown_person: 'not_found',
  unknown_workspace: 'not_found',
  duplicate_email: 'conflict',
  invalid_email: 'invalid_request',
  invalid_password: 'invalid_request',
  invalid_name: 'invalid_request',
  key_limit: 'conflict',
};

/** The HTTP status of an identity refusal: the dashboard answers its forms with the status the API would. */
export function identityErrorStatus(error: IdentityError): number {
  return ERROR_CATALOGUE[IDENTITY_ERROR_CODES[error.kind]].status;
}

const RESOURCE_ERROR_CODES: Record<ResourceErrorKind, ErrorCode> = {
  not_found: 'not_found',
  limit: 'conflict',
  state: 'conflict',
  destination: 'forbidden_destination',
  invalid: 'invalid_request',
  busy: 'rate_limited',
};

/** HTTP statuses yoga itself answers a malformed request with, and their catalogue codes. */
const YOGA_STATUS_CODES: Record<number, ErrorCode> = { 405: 'method_not_allowed', 413: 'payload_too_large', 415: 'unsupported_media_type' };

/**
 * A GraphQL error about the request itself (parse, document limits, validation, variable coercion, or yoga's own
 * HTTP checks): 400 naming the variable, argument, field or limit where there is one, or yoga's 405/413/415 with
 * its headers (`Allow`). `place` is where the literal a validation error points at sits (`forumPost(id: 1)`:
 * graphql-js's message names no argument), named as the argument checks name it (builder.ts validationFailure).
 */
function requestError(error: GraphQLError, place?: LiteralPlace): GraphQLError {
  // graphql-jit's own request errors come without an extensions object.
  const http = (error.extensions as { http?: { status?: number; headers?: Record<string, string> } } | undefined)?.http;
  const code = (http?.status && YOGA_STATUS_CODES[http.status]) || (/invalid JSON/i.test(error.message) ? 'invalid_json' : 'invalid_request');
  const entry = ERROR_CATALOGUE[code];
  const named = NAMING_ERRORS.map((pattern) => pattern.exec(error.message)?.[1]).find((name) => name !== undefined);
  const placed = named === undefined ? place : undefined;
  // The pipeline's own request errors (document limits) say what they name.
  const details = named ? { field: named } : (placed ?? (error.extensions as { details?: Record<string, unknown> } | undefined)?.details);
  // A missing required member in the API's own words, not GraphQL's (`Variable "$query" of required type "String!"…`).
  const message =
    named && /was not provided/.test(error.message)
      ? `'${named}' is required.`
      : placed
        ? `Invalid value for '${placed.field}'${placed.path ? ` at '${placed.path}'` : ''}: ${error.message}`
        : error.message;
  return new GraphQLError(message, {
    nodes: error.nodes,
    extensions: {
      code,
      retryable: isRetryable(code),
      http: { status: entry.status, ...(http?.headers ? { headers: http.headers } : {}) },
      ...(details ? { details } : {}),
    },
  });
}

/** A validation error of a document: a request error, naming the argument of the literal it points at (placeOf). */
export function toCatalogueValidationError(error: Error, placeOf: (node: ASTNode) => LiteralPlace | undefined): GraphQLError {
  const node = error instanceof GraphQLError && !isServiceError(error) && !error.originalError && !error.path ? error.nodes?.[0] : undefined;
  return node ? requestError(error as GraphQLError, placeOf(node)) : toCatalogueError(error);
}

/**
 * Maps any error of an execution onto the closed catalogue. Domain errors pass through, upstream errors get
 * their status, GraphQL's own request errors become 400s naming the member at fault, and anything else is masked
 * as a 500 so internals never leak.
 */
export function toCatalogueError(error: unknown): GraphQLError {
  if (isServiceError(error)) return error;
  if (error instanceof GraphQLError) {
    const original = error.originalError;
    if (original && original !== error) {
      const mapped = toCatalogueError(original);
      return new GraphQLError(mapped.message, { nodes: error.nodes, path: error.path, extensions: mapped.extensions });
    }
    if (!error.path) return requestError(error);
  }
  // Yoga parses the request's JSON (a POST body, GET `variables`/`extensions`) itself and lets the SyntaxError out.
  if (error instanceof SyntaxError) return new ServiceError('invalid_json', { message: `The request is not valid JSON: ${error.message}`, details: { field: 'body' } });
  if (error instanceof UpstreamError) return fromUpstream(error);
  if (error instanceof CreditsRefusal) return fromCreditsRefusal(error);
  if (error instanceof CreditsConflict) return new ServiceError('conflict', { message: error.message });
  if (error instanceof ResourceError) {
    const headers = error.retryAfterSeconds === undefined ? undefined : { 'retry-after': String(error.retryAfterSeconds) };
    return new ServiceError(RESOURCE_ERROR_CODES[error.kind], { message: error.message, details: error.details, ...(headers ? { headers } : {}) });
  }
  if (error instanceof IdentityError) {
    const details = error.kind === 'key_limit' ? error.details : { field: error.field };
    return new ServiceError(IDENTITY_ERROR_CODES[error.kind], { message: error.message, details });
  }
  if (isDatabaseUnavailable(error)) {
    return new ServiceError('not_ready', { message: 'The database is unreachable: retry with backoff. Nothing was charged.', details: { dependency: 'database' } });
  }
  logger.error({ err: error }, 'unexpected error');
  return new ServiceError('internal_error');
}
