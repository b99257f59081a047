import { GraphQLError } from 'graphql';
import { UpstreamError } from '../../adapters/upstream/upstream-error.ts';
import { ERROR_CATALOGUE, ServiceError, isServiceError } from '../error-catalogue.ts';

const VARIABLE_ERROR = /^Variable "\$([A-Za-z0-9_]+)"/;

function fromUpstream(error: UpstreamError): ServiceError {
  if (error.kind === 'unavailable') {
    return new ServiceError('upstream_unavailable', { details: { platform: error.platform } });
  }
  return new ServiceError('not_found', {
    details: error.kind === 'not_public' ? { platform: error.platform, reason: error.reason ?? 'unavailable' } : { platform: error.platform },
  });
}

/**
 * Maps any error of an execution onto the closed catalogue. Domain errors pass through, upstream errors get
 * their status, GraphQL's own request errors become 400s naming the variable, and anything else is masked
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
    if (!error.path) {
      // Parse, validation and variable-coercion errors: the request itself is wrong.
      const variable = VARIABLE_ERROR.exec(error.message)?.[1];
      const entry = ERROR_CATALOGUE.invalid_request;
      return new GraphQLError(error.message, {
        nodes: error.nodes,
        extensions: {
          code: 'invalid_request',
          retryable: entry.retryable,
          http: { status: entry.status },
          ...(variable ? { details: { field: variable } } : {}),
        },
      });
    }
  }
  if (error instanceof UpstreamError) return fromUpstream(error);
  logUnexpected(error);
  return new ServiceError('internal_error');
}

function logUnexpected(error: unknown): void {
  console.error('[svc] unexpected error', error);
}
