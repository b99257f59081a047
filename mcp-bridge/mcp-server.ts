import { fromJsonSchema, McpServer, type JsonSchemaType, type jsonSchemaValidator } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { takesCallOptions, UNIT_PRICES, type OperationSpec } from '../schema/catalogue/operation.ts';
import type { OperationExecutor } from '../schema/execute-operation.ts';
import { envelopeOfError, toEnvelope, type EnvelopeResponse } from '../schema/operation-envelope.ts';
import { grants } from '../adapters/identity/scopes.ts';
import { Meter } from '../core/meter.ts';
import { ServiceError } from '../core/error-catalogue.ts';
import { remainingAfterRefusal, setCreditHeaders } from '../schema/pipeline/credit-headers.ts';
import type { RequestContext } from '../core/request-context.ts';
import { def, unwrap } from '../schema/zod-shape.ts';

const MONITOR_OR_WEBHOOK = /^(monitors|webhooks):/;

/**
 * Whether a connection sees a tool at all. Monitor and webhook tools exist only on connections granted that
 * access; every other tool is listed and the pipeline answers a missing scope with 403 as on REST.
 */
export function toolVisible(op: OperationSpec, scopes: readonly string[]): boolean {
  const gated = op.scopes.filter((scope) => MONITOR_OR_WEBHOOK.test(scope));
  return gated.length === 0 || gated.some((scope) => grants(scopes, scope));
}

/**
 * Lets every argument through to the tool handler: the tool's JSON schema is still listed for clients, but the
 * arguments are checked by the pipeline, as on REST and GraphQL, so a bad one comes back as the same
 * `{error, meta}` envelope (a 400 naming the field) rather than the SDK's own text.
 */
const passThrough: jsonSchemaValidator = {
  getValidator: () => (input: unknown) => ({ valid: true, data: input as never, errorMessage: undefined }),
};

/** Arguments every tool whose call costs credits takes beside the operation's own: the call's credit ceiling and dry run. */
const CALL_OPTION_SCHEMAS = {
  maxCredits: {
    type: 'integer',
    minimum: 0,
    maximum: 1_000_000_000,
    description: 'The most this call may be charged (with the run it queues, for a monitor). A call whose worst case is higher is refused free (400 naming maxCredits), or served as a smaller page where the tool takes a limit (meta.partial says so).',
  },
  dryRun: { type: 'boolean', description: 'true: run nothing and charge nothing; the result is data null with meta.estimate (minimumCredits, worstCaseCredits, rateLimitWeight).' },
} as const;

const toolSchemas = new WeakMap<OperationSpec, ReturnType<typeof fromJsonSchema>>();
const outputSchemas = new WeakMap<OperationSpec, ReturnType<typeof fromJsonSchema>>();

/** The `structuredContent` of a success: the same `{data, meta}` envelope as REST (errors come with `isError`). */
function outputSchemaOf(op: OperationSpec) {
  let schema = outputSchemas.get(op);
  if (!schema) {
    const data = z.toJSONSchema(op.output, { io: 'output', unrepresentable: 'any' }) as Record<string, unknown>;
    // Named shapes stay in `$defs` at the root, where the `$ref`s inside `data` point.
    const { $schema: _ignored, $defs, ...dataSchema } = data;
    const meta = { type: 'object', properties: { requestId: { type: 'string' } }, required: ['requestId'] };
    // A dry run answers data null.
    const dataOrNull = takesCallOptions(op) ? { anyOf: [dataSchema, { type: 'null' }] } : dataSchema;
    const envelope = { type: 'object', properties: { data: dataOrNull, meta }, required: ['data', 'meta'], ...($defs ? { $defs } : {}) };
    schema = fromJsonSchema(envelope as JsonSchemaType, passThrough);
    outputSchemas.set(op, schema);
  }
  return schema;
}

/** What an agent needs before calling: the price, the weight, and how paging ends. */
function toolDescription(op: OperationSpec): string {
  const parts = [op.description];
  const { minimumCredits, units, rateLimitWeight } = op.billing;
  if (minimumCredits > 0) {
    const perUnit = units.map((unit) => `${UNIT_PRICES[unit]} per ${unit.replace('_', ' ')}`).join(' + ');
    parts.push(`Price: ${minimumCredits} credit${minimumCredits > 1 ? 's' : ''} a call + ${perUnit} returned; rate-limit weight ${rateLimitWeight}.`);
    parts.push('Pass dryRun: true for the estimate without running anything (free), and maxCredits to cap what the call may cost.');
  } else if (op.billing.chargedLater) {
    // The description already says what is free and what is charged later.
    parts.push(`Rate-limit weight ${rateLimitWeight}.`);
    if (op.billing.queuedRun) parts.push('Pass dryRun: true for the worst case of the run it queues without changing anything (free), and maxCredits to refuse the call when that run could cost more.');
  } else {
    parts.push(`Free; rate-limit weight ${rateLimitWeight}.`);
  }
  if (op.paginated) parts.push('Pages: pass meta.nextCursor back as cursor; nextCursor null is the only stop (a page may be short or empty before it).');
  return parts.join(' ');
}

/** Hints for clients: reads touch nothing, platform reads reach the open world, deletes destroy, updates repeat safely. */
function annotationsOf(op: OperationSpec) {
  const read = op.graphql.kind === 'query';
  return {
    title: op.operationId.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/^./, (c) => c.toUpperCase()),
    readOnlyHint: read,
    destructiveHint: op.rest.method === 'DELETE',
    idempotentHint: read || op.rest.method === 'PATCH' || op.rest.method === 'DELETE',
    openWorldHint: op.billing.minimumCredits > 0,
  };
}

function toolSchemaOf(op: OperationSpec) {
  let schema = toolSchemas.get(op);
  if (!schema) {
    const input = z.toJSONSchema(op.input, { io: 'input', unrepresentable: 'any' }) as { properties?: Record<string, unknown> };
    // Unknown arguments are refused by name (below), so the schema says the object is closed.
    const closed = { ...input, additionalProperties: false };
    const withOptions = takesCallOptions(op) ? { ...closed, properties: { ...input.properties, ...CALL_OPTION_SCHEMAS } } : closed;
    schema = fromJsonSchema(withOptions as JsonSchemaType, passThrough);
    toolSchemas.set(op, schema);
  }
  return schema;
}

function toolResult(envelope: EnvelopeResponse, credits: unknown) {
  return {
    content: [{ type: 'text' as const, text: JSON.stringify(envelope.body) }],
    structuredContent: envelope.body as Record<string, unknown>,
    isError: envelope.isError,
    ...(credits ? { _meta: { credits } } : {}),
  };
}

/**
 * A refused call's wait (a rate limit's, credits held by calls in flight) goes on the HTTP answer too, as REST sends
 * it: the call is still a tool error in a 200, which the model reads, and an HTTP client backs off on `Retry-After`.
 * In a batch, the longest wait.
 */
function addRetryAfter(ctx: RequestContext, envelope: EnvelopeResponse): void {
  const wait = envelope.headers['retry-after'];
  const kept = ctx.responseHeaders['retry-after'];
  if (wait !== undefined && (kept === undefined || Number(wait) > Number(kept))) ctx.responseHeaders['retry-after'] = wait;
}

/** The HTTP response reports what all its calls charged together, and the balance after the last. */
function addCallHeaders(ctx: RequestContext, call: RequestContext): void {
  const charged = Number(ctx.responseHeaders['x-credits-charged'] ?? 0) + Number(call.responseHeaders['x-credits-charged'] ?? 0);
  Object.assign(ctx.responseHeaders, call.responseHeaders, { 'x-credits-charged': String(charged) });
}

/**
 * A fresh MCP server for one HTTP request, with one tool per catalogue operation, executed through the pipeline. A tool
 * the key does not see is still there when this request calls it: the pipeline then answers the 403
 * `insufficient_scope` tool error naming the scope, as for a listed tool, rather than the SDK's "Tool … not found",
 * which would send the user looking for a typo. The server lives for this one request, so it lists nothing it hides.
 */
export function buildMcpServer(
  ctx: RequestContext,
  operations: readonly OperationSpec[],
  executor: OperationExecutor,
  info: { name: string; version: string },
  called: ReadonlySet<string> = new Set(),
): McpServer {
  const server = new McpServer({ name: info.name, version: info.version });
  const scopes = ctx.principal?.scopes ?? [];
  for (const op of operations) {
    if (!toolVisible(op, scopes) && !called.has(op.tool)) continue;
    const annotations = annotationsOf(op);
    const config = { title: annotations.title, description: toolDescription(op), inputSchema: toolSchemaOf(op), outputSchema: outputSchemaOf(op), annotations };
    server.registerTool(op.tool, config, async (raw: unknown) => {
      const { maxCredits, dryRun, ...own } = (raw ?? {}) as Record<string, unknown>;
      // Only tools whose calls cost credits take the call options; on a free one they are unknown arguments like any other.
      const args = takesCallOptions(op) ? own : ((raw ?? {}) as Record<string, unknown>);
      // Unknown arguments are refused by name, as on REST: a typo must never change what a paid call returns. Own
      // members only: the shape is a plain object, which inherits `constructor` and `toString`.
      const known = (name: string) => Object.hasOwn(op.input.shape, name);
      const unknown = Object.keys(args).find((name) => !known(name));
      // Command-line clients infer types: an all-digit id arrives as a number where the input is a digit string. Only
      // an integer a JSON number carries exactly: a 19-digit id was already rounded when the body was parsed, and its
      // digits would name another post (security review h, G-M3).
      let inexact: string | undefined;
      for (const [name, value] of Object.entries(args)) {
        if (typeof value !== 'number' || !known(name) || def(unwrap(op.input.shape[name] as z.ZodType).base).type !== 'string') continue;
        if (Number.isSafeInteger(value)) args[name] = String(value);
        else inexact ??= name;
      }
      const refusal =
        unknown !== undefined
          ? new ServiceError('invalid_request', { message: `Unknown argument '${unknown}'.`, details: { field: unknown } })
          : inexact !== undefined
            ? new ServiceError('invalid_request', { message: `Send '${inexact}' as a string: a JSON number carries whole numbers exactly only up to 9007199254740991, so this one's digits may already have changed.`, details: { field: inexact } })
            : undefined;
      if (refusal) {
        // Reported as the pipeline reports its own refusals: the balance as it would give it, the call's worst case.
        const refused: RequestContext = { ...ctx, responseHeaders: {} };
        const remaining = await remainingAfterRefusal(refused, refusal);
        setCreditHeaders(refused, 0, remaining);
        addCallHeaders(ctx, refused);
        return toolResult(envelopeOfError(ctx.requestId, refusal), { charged: 0, remaining, worstCase: executor.worstCase(op, args) });
      }
      // Each call of a JSON-RPC batch is metered and settled on its own; the response's headers add them up.
      // Beside the headers' own: the strictest applies (core/call-options.ts).
      const callOptions = {
        maxCredits: [...(ctx.callOptions?.maxCredits ?? []), ...(maxCredits === undefined ? [] : [{ value: maxCredits, field: 'maxCredits' }])],
        dryRun: [...(ctx.callOptions?.dryRun ?? []), ...(dryRun === undefined ? [] : [{ value: dryRun, field: 'dryRun' }])],
      };
      const call: RequestContext = { ...ctx, meter: new Meter(), memo: new Map(), responseHeaders: {}, callOptions };
      const result = await executor(op, args, call);
      addCallHeaders(ctx, call);
      const envelope = toEnvelope(op, result, ctx.requestId);
      addRetryAfter(ctx, envelope);
      return toolResult(envelope, result.extensions?.credits);
    });
  }
  return server;
}
