import { createYoga } from 'graphql-yoga';
import type { GraphQLError } from 'graphql';
import { documentCompiler, useCompiledDocuments } from './compiled-documents.ts';
import { documentCache } from './document-cache.ts';
import { useDocumentLimits } from './document-limits.ts';
import { toCatalogueError } from './error-mapping.ts';
import { useCatalogueValidationErrors } from './use-catalogue-validation-errors.ts';
import { useOperationPolicy, type OperationPolicy } from './use-operation-policy.ts';
import { useValidationCache } from './use-validation-cache.ts';
import { reportNothingCharged } from './credit-headers.ts';
import type { RequestContext } from '../../core/request-context.ts';
import { schema } from '../schema.ts';

export type GraphQLServer = ReturnType<typeof createGraphQLServer>;

/** The headers every GraphQL response carries besides yoga's: the call's credit headers and its request id. */
export async function graphqlResponseHeaders(ctx: RequestContext): Promise<Record<string, string>> {
  // Requests refused before execution (unparsable or invalid documents) charged nothing.
  await reportNothingCharged(ctx);
  return ctx.requestId ? { ...ctx.responseHeaders, 'x-request-id': ctx.requestId } : ctx.responseHeaders;
}

/**
 * graphql-yoga with the one policy pipeline, which the REST and MCP bridges run too (execute-operation.ts). `graphiql`:
 * serve the GraphiQL page on `GET /graphql` (off in production: it loads its scripts from unpkg.com unchecked).
 */
export function createGraphQLServer(options: { graphiql: boolean; policy: OperationPolicy }) {
  return createYoga<RequestContext>({
    schema,
    graphqlEndpoint: '/graphql',
    graphiql: options.graphiql && { title: 'Conversation Data Service' },
    landingPage: false,
    // The listener applies the service's one CORS policy (service/cors.ts); yoga's own echoes any origin with credentials.
    cors: false,
    // The HTTP listener enforces the body limit: a declared Content-Length is checked before yoga sees the
    // request, and a body without one is read by the listener's bounded reader. Yoga's own limit would wrap
    // every body in a counting stream, which costs more than the rest of a small request.
    maxRequestBodySize: false,
    // Parsed documents (and parse errors) stay in yoga's cache, bounded by the bytes of query text it holds
    // (document-cache.ts); validation results in useValidationCache, keyed by document only, so they go with it.
    parserAndValidationCache: { documentCache: documentCache(), errorCache: documentCache(), validationCache: false },
    logging: false,
    maskedErrors: { maskError: (error) => toCatalogueError(error) as GraphQLError },
    plugins: [
      // Compiled execution, inside the envelop chain so the policy plugin still wraps every execution; the
      // compiled form of each document and operation name is kept (compiled-documents.ts).
      useCompiledDocuments(documentCompiler(schema)),
      useDocumentLimits(),
      useOperationPolicy(options.policy),
      useCatalogueValidationErrors(),
      useValidationCache(),
      {
        async onResponse({ response, serverContext }) {
          const ctx = serverContext as unknown as RequestContext | undefined;
          if (!ctx?.responseHeaders) return;
          for (const [name, value] of Object.entries(await graphqlResponseHeaders(ctx))) response.headers.set(name, value);
        },
      },
    ],
  });
}
