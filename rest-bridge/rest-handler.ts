import type { OperationSpec } from '../schema/catalogue/operation.ts';
import { isServiceError } from '../core/error-catalogue.ts';
import { JSON_MEDIA_TYPE } from '../core/json-depth.ts';
import type { OperationExecutor } from '../schema/execute-operation.ts';
import { envelopeOfError, errorEnvelope, toEnvelope, type EnvelopeResponse } from '../schema/operation-envelope.ts';
import { toCatalogueError } from '../schema/pipeline/error-mapping.ts';
import type { RequestContext } from '../core/request-context.ts';
import { authenticate } from '../schema/pipeline/authenticate.ts';
import { scopesGrant } from '../schema/pipeline/use-operation-policy.ts';
import { idempotent, requestHash } from '../schema/pipeline/idempotency.ts';
import { variablesFor } from './request-input.ts';
import { createRouteTable } from './route-table.ts';

export interface RestRequest {
  method: string;
  pathname: string;
  /** The query string without its `?`; empty when there is none. */
  query: string;
  contentType: string | undefined;
  /** The raw body; empty when none was sent. */
  body: string;
  /** The `Idempotency-Key` header, if sent. */
  idempotencyKey?: string;
}

function parseBody(request: RestRequest, requestId: string): { ok: true; value: unknown } | { ok: false; response: EnvelopeResponse } {
  if (request.body.length === 0) return { ok: true, value: undefined };
  if (!JSON_MEDIA_TYPE.test(request.contentType ?? '')) {
    return { ok: false, response: errorEnvelope(requestId, 'unsupported_media_type', 'Request bodies must be sent with Content-Type: application/json.', { field: 'content-type' }) };
  }
  try {
    return { ok: true, value: JSON.parse(request.body) };
  } catch (error) {
    return { ok: false, response: errorEnvelope(requestId, 'invalid_json', `The request body is not valid JSON: ${(error as Error).message}`, { field: 'body' }) };
  }
}

/** The `/v1` bridge (and `/health`, `/ready`): each route turns path, query and body into one catalogue operation. */
export function createRestHandler(executor: OperationExecutor, operations: readonly OperationSpec[]) {
  const table = createRouteTable(operations);
  return async function handle(request: RestRequest, ctx: RequestContext): Promise<EnvelopeResponse> {
    const match = table.match(request.method, request.pathname);
    if (match.kind === 'not_found') return errorEnvelope(ctx.requestId, 'not_found', `No operation at ${request.method} ${request.pathname}.`, { path: request.pathname });
    if (match.kind === 'method_not_allowed') {
      const response = errorEnvelope(ctx.requestId, 'method_not_allowed', `${request.method} is not allowed on ${request.pathname}; use ${match.allow.join(', ')}.`, { allow: match.allow });
      return { ...response, headers: { allow: match.allow.join(', ') } };
    }
    const { op } = match.route;
    // A body is parsed only for a caller whose key holds: parsing 1 MiB of crafted JSON costs far more than a key
    // check (cached for a known key), so an unknown caller is refused first.
    if (request.body.length > 0 && op.authentication === 'key') {
      const refused = await authenticate(ctx).then(() => undefined, (error: unknown) => envelopeOfError(ctx.requestId, toCatalogueError(error)));
      if (refused) return refused;
    }
    const body = parseBody(request, ctx.requestId);
    if (!body.ok) return body.response;
    let variables: Record<string, unknown>;
    try {
      variables = variablesFor(op, match.params, request.query ? new URLSearchParams(request.query) : undefined, body.value);
    } catch (error) {
      if (!isServiceError(error)) throw error;
      const ext = error.extensions;
      return errorEnvelope(ctx.requestId, ext.code, error.message, ext.details);
    }
    const execute = async () => toEnvelope(op, await executor(op, variables, ctx), ctx.requestId);
    // Only changes are made idempotent, per account; a request the key cannot be tied to an account runs as it is.
    // A dry run changes nothing, so it neither takes a key nor is replayed for the real call that follows.
    const changes = op.rest.method !== 'GET' && !ctx.callOptions?.dryRun?.some(({ value }) => value === 'true');
    const principal = request.idempotencyKey !== undefined && changes ? await authenticate(ctx).catch(() => undefined) : undefined;
    // A key without the operation's scope is refused by the pipeline as usual: it is never given a stored answer.
    if (!principal || request.idempotencyKey === undefined || !scopesGrant(principal, op)) return execute();
    const hash = requestHash(request.method, request.pathname, body.value);
    return idempotent(ctx.deps.idempotency, { scope: principal.workspaceId, key: request.idempotencyKey, hash, requestId: ctx.requestId, oneTimeSecret: op.rest.oneTimeSecret }, execute);
  };
}
