import { fromJsonSchema, McpServer, type JsonSchemaType, type jsonSchemaValidator } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { OperationSpec } from '../schema/catalogue/operation.ts';
import type { OperationExecutor } from '../schema/execute-operation.ts';
import { errorEnvelope, toEnvelope, type EnvelopeResponse } from '../schema/operation-envelope.ts';
import { grants } from '../adapters/identity/scopes.ts';
import { Meter } from '../core/meter.ts';
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

const toolSchemas = new WeakMap<OperationSpec, ReturnType<typeof fromJsonSchema>>();

function toolSchemaOf(op: OperationSpec) {
  let schema = toolSchemas.get(op);
  if (!schema) {
    schema = fromJsonSchema(z.toJSONSchema(op.input, { io: 'input', unrepresentable: 'any' }) as JsonSchemaType, passThrough);
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

/** The HTTP response reports what all its calls charged together, and the balance after the last. */
function addCallHeaders(ctx: RequestContext, call: RequestContext): void {
  const charged = Number(ctx.responseHeaders['x-credits-charged'] ?? 0) + Number(call.responseHeaders['x-credits-charged'] ?? 0);
  Object.assign(ctx.responseHeaders, call.responseHeaders, { 'x-credits-charged': String(charged) });
}

/** A fresh MCP server for one HTTP request, with one tool per catalogue operation, executed through the pipeline. */
export function buildMcpServer(
  ctx: RequestContext,
  operations: readonly OperationSpec[],
  executor: OperationExecutor,
  info: { name: string; version: string },
): McpServer {
  const server = new McpServer({ name: info.name, version: info.version });
  const scopes = ctx.principal?.scopes ?? [];
  for (const op of operations) {
    if (!toolVisible(op, scopes)) continue;
    server.registerTool(op.tool, { description: op.description, inputSchema: toolSchemaOf(op) }, async (raw: unknown) => {
      const args = (raw ?? {}) as Record<string, unknown>;
      // Unknown arguments are refused by name, as on REST: a typo must never change what a paid call returns.
      const unknown = Object.keys(args).find((name) => !(name in op.input.shape));
      // Command-line clients infer types: an all-digit id arrives as a number where the input is a digit string.
      for (const [name, value] of Object.entries(args)) {
        if (typeof value === 'number' && name in op.input.shape && def(unwrap(op.input.shape[name] as z.ZodType).base).type === 'string') args[name] = String(value);
      }
      if (unknown !== undefined) {
        return toolResult(errorEnvelope(ctx.requestId, 'invalid_request', `Unknown argument '${unknown}'.`, { field: unknown }), { charged: 0 });
      }
      // Each call of a JSON-RPC batch is metered and settled on its own; the response's headers add them up.
      const call: RequestContext = { ...ctx, meter: new Meter(), memo: new Map(), responseHeaders: {} };
      const result = await executor(op, args, call);
      addCallHeaders(ctx, call);
      return toolResult(toEnvelope(op, result, ctx.requestId), result.extensions?.credits);
    });
  }
  return server;
}
