import { McpServer } from '@modelcontextprotocol/server';
import type { OperationSpec } from '../schema/catalogue/operation.ts';
import type { OperationExecutor } from '../schema/execute-operation.ts';
import { toEnvelope } from '../schema/operation-envelope.ts';
import { grants } from '../adapters/identity/scopes.ts';
import type { RequestContext } from '../schema/pipeline/request-context.ts';

const MONITOR_OR_WEBHOOK = /^(monitors|webhooks):/;

/**
 * Whether a connection sees a tool at all. Monitor and webhook tools exist only on connections granted that
 * access; every other tool is listed and the pipeline answers a missing scope with 403 as on REST.
 */
export function toolVisible(op: OperationSpec, scopes: readonly string[]): boolean {
  const gated = op.scopes.filter((scope) => MONITOR_OR_WEBHOOK.test(scope));
  return gated.length === 0 || gated.some((scope) => grants(scopes, scope));
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
    server.registerTool(op.tool, { description: op.description, inputSchema: op.input }, async (args: Record<string, unknown>) => {
      const result = await executor(op, args, ctx);
      const envelope = toEnvelope(op, result, ctx.requestId);
      const credits = result.extensions?.credits;
      return {
        content: [{ type: 'text' as const, text: JSON.stringify(envelope.body) }],
        structuredContent: envelope.body as Record<string, unknown>,
        isError: envelope.isError,
        ...(credits ? { _meta: { credits } } : {}),
      };
    });
  }
  return server;
}
