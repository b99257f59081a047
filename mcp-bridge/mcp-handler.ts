import { createMcpHandler } from '@modelcontextprotocol/server';
import type { OperationSpec } from '../schema/catalogue/operation.ts';
import { isServiceError } from '../core/error-catalogue.ts';
import type { OperationExecutor } from '../schema/execute-operation.ts';
import { errorEnvelope, type EnvelopeResponse } from '../schema/operation-envelope.ts';
import { authenticate } from '../schema/pipeline/authenticate.ts';
import type { RequestContext } from '../core/request-context.ts';
import { buildMcpServer } from './mcp-server.ts';

/**
 * `/mcp`: stateless Streamable HTTP. Serves the 2026-07-28 protocol and, for 2025-era clients, the
 * stateless legacy fallback; every request gets a fresh server built for the caller's key.
 */
export function createMcpBridge(operations: readonly OperationSpec[], executor: OperationExecutor, info: { name: string; version: string }) {
  const handler = createMcpHandler(
    (mcpCtx) => {
      const ctx = mcpCtx.authInfo?.extra?.requestContext as RequestContext | undefined;
      // The bridge authenticates before it calls the handler, so a request context is always present.
      if (!ctx) throw new Error('MCP request without an authenticated context');
      return buildMcpServer(ctx, operations, executor, info);
    },
    // One JSON answer after the tool has run, so the HTTP response can carry the call's credit headers.
    { responseMode: 'json' },
  );
  return {
    async handle(request: Request, ctx: RequestContext): Promise<Response | EnvelopeResponse> {
      try {
        const principal = await authenticate(ctx);
        return await handler.fetch(request, {
          authInfo: { token: 'api-key', clientId: principal.keyId, scopes: [...principal.scopes], extra: { requestContext: ctx } },
        });
      } catch (error) {
        if (!isServiceError(error)) throw error;
        const envelope = errorEnvelope(ctx.requestId, error.extensions.code, error.message, error.extensions.details);
        return { ...envelope, headers: { 'www-authenticate': 'Bearer', 'x-credits-charged': '0' } };
      }
    },
    close: () => handler.close(),
  };
}
