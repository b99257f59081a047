import type { IncomingHttpHeaders } from 'node:http';
import type { DocumentNode, ExecutionResult, GraphQLError, GraphQLSchema } from 'graphql';
import { processRegularResult, type FetchAPI, type GraphQLParams } from 'graphql-yoga';
import type { RequestContext } from '../../core/request-context.ts';
import { toCatalogueError } from './error-mapping.ts';
import { graphqlResponseHeaders, type GraphQLServer } from './graphql-server.ts';
import type { OperationPolicy } from './use-operation-policy.ts';
import { executeCompiled } from './execute-compiled.ts';
import { documentCompiler } from './compiled-documents.ts';

/** A GraphQL-over-HTTP response, ready to be written: what yoga would have answered for the same request. */
export interface GraphQLAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** The common request: `POST /graphql`, a JSON body read whole, no `Origin`. */
export interface JsonPost {
  body: string;
  headers: IncomingHttpHeaders;
}

/**
 * `POST /graphql` with a JSON body (yoga's own test of the content type), no query string and no `Origin`: the
 * request clients send, answered without Fetch conversions. A browser's request (with `Origin`), and anything
 * else, yoga serves whole; the listener adds the CORS headers either way.
 */
export function isJsonPost(req: { method?: string; url?: string; headers: IncomingHttpHeaders }): boolean {
  const type = req.headers['content-type']?.split(',')[0];
  return req.method === 'POST' && req.url === '/graphql' && req.headers.origin === undefined && (type === 'application/json' || !!type?.startsWith('application/json;'));
}

type JsonMediaType = 'application/json' | 'application/graphql-response+json';

const REGULAR_TYPES: readonly JsonMediaType[] = ['application/graphql-response+json', 'application/json'];

function matches(asked: string, offered: string): boolean {
  const [askedType, askedSubtype] = asked.split('/');
  const [type, subtype] = offered.split('/');
  return (askedType === '*' || askedType === type) && (askedSubtype === '*' || askedSubtype === subtype);
}

/**
 * The media type yoga's result processors answer a single (non-streamed) result in, for an `Accept` header; undefined
 * when they would pick another processor (event stream, multipart) or refuse it (406). Yoga walks the accepted types
 * last to first and keeps its last match, so the first accepted type (utf-8 only, `q` ignored) that either JSON type
 * matches decides, `application/json` winning when both do.
 */
function negotiate(accept: string): JsonMediaType | undefined {
  const asked = (accept || '*/*').replace(/\s/g, '').toLowerCase().split(',');
  for (const entry of asked) {
    const [mediaType, ...params] = entry.split(';');
    const charset = params.find((param) => param.includes('charset=')) ?? 'charset=utf-8';
    if (charset !== 'charset=utf-8') continue;
    const matched = REGULAR_TYPES.filter((offered) => matches(mediaType, offered));
    if (matched.length) return matched[matched.length - 1];
  }
  return undefined;
}

/** Negotiated once per distinct header: clients send a handful of Accept values, each on every request. */
const negotiated = new Map<string, JsonMediaType | undefined>();
const NEGOTIATED_MAX = 100;

export function jsonMediaTypeOf(accept: string | undefined): JsonMediaType | undefined {
  const header = accept ?? '';
  if (negotiated.has(header)) return negotiated.get(header);
  const type = negotiate(header);
  if (negotiated.size < NEGOTIATED_MAX) negotiated.set(header, type);
  return type;
}

const PARAMS = new Set(['query', 'variables', 'operationName', 'extensions']);
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A body of one request's parameters, as yoga's checks accept them: a query string, optional objects and name. */
function isPlainParams(params: unknown): params is GraphQLParams {
  if (!isObject(params) || typeof params.query !== 'string') return false;
  for (const [name, value] of Object.entries(params)) if (value !== null && value !== undefined && !PARAMS.has(name)) return false;
  const { variables, extensions, operationName } = params;
  return (variables == null || isObject(variables)) && (extensions == null || isObject(extensions)) && (operationName == null || typeof operationName === 'string');
}

/** Only what processRegularResult needs of the Fetch API: its Response, kept as the status, headers and text it got. */
class CapturedResponse {
  readonly body: string;
  readonly init: { status: number; headers: Record<string, string> };
  constructor(body: string, init: CapturedResponse['init']) {
    this.body = body;
    this.init = init;
  }
}
const CAPTURE = { Response: CapturedResponse } as unknown as FetchAPI;

/** What yoga answers for the request given whole, on its own Fetch API (the one its Node handler builds requests with). */
async function yogaAnswer(graphql: GraphQLServer, { body, headers }: JsonPost, ctx: RequestContext): Promise<GraphQLAnswer> {
  const request = new graphql.fetchAPI.Request('http://localhost/graphql', { method: 'POST', headers: headers as Record<string, string>, body });
  const response = await graphql.fetch(request, ctx as never);
  const answered: Record<string, string> = {};
  response.headers.forEach((value, name) => (answered[name] = value));
  return { status: response.status, headers: answered, body: await response.text() };
}

const BYTE_ORDER_MARK = 0xfeff;

/** What yoga's plugins read of a request on this path: its method (a mutation over GET is refused, parse errors are 400). */
const POST_REQUEST = { method: 'POST' };

/**
 * GraphQL over HTTP for the common request without the Fetch API and without envelop's execute wrapper. Yoga's own
 * pieces do what a client's text needs: its parameter checks (isPlainParams holds the same rules), its parse and
 * validation through the envelop instance (parse cache, document limits, validation cache and error mapping, the
 * HTTP status of a refused document) and its result processor. Execution is the one policy around the document
 * compiled with graphql-jit, then yoga's error masking (`toCatalogueError`, once per error as yoga's `maskError`
 * does): the same steps `useCompiledDocuments`, `useOperationPolicy` and `useMaskedErrors` take in yoga's chain, without
 * the chain. Answers undefined, before anything ran, for a request yoga must see whole (a body that is not one
 * JSON object, an `Accept` that is not for JSON): the listener then hands it to yoga. The schema has no
 * subscriptions and no @defer/@stream, so a result is always single.
 */
export function createJsonPostHandler(graphql: GraphQLServer, policy: OperationPolicy) {
  const { schema } = graphql.getEnveloped({});
  const compiledFor = documentCompiler(schema);
  const mask = (errors: readonly unknown[]): GraphQLError[] => errors.map((error) => toCatalogueError(error));
  const execute = (document: DocumentNode, params: GraphQLParams, ctx: RequestContext): Promise<ExecutionResult> =>
    executeCompiled(policy, { schema, document, variableValues: params.variables, contextValue: ctx, operationName: params.operationName }, () =>
      compiledFor(document, params.operationName ?? undefined),
    );
  return async ({ body, headers }: JsonPost, ctx: RequestContext): Promise<GraphQLAnswer | undefined> => {
    // Yoga's own Request keeps a leading byte order mark, so the body is not JSON to it (400 on the path a request
    // with `Origin` takes); declined, it would reach yoga through the platform's Request, whose JSON reading drops
    // the mark. Yoga answers it here on its own Request, so both paths refuse it alike.
    if (body.charCodeAt(0) === BYTE_ORDER_MARK) return yogaAnswer(graphql, { body, headers }, ctx);
    const mediaType = jsonMediaTypeOf(headers.accept);
    if (!mediaType) return undefined;
    let params: unknown;
    try {
      params = JSON.parse(body);
    } catch {
      return undefined;
    }
    // Batches, bodies that are not an object and parameters yoga refuses get yoga's own refusals.
    if (!isPlainParams(params)) return undefined;
    // What yoga's parameters handler adds to the context before its plugins see it.
    Object.assign(ctx, { request: POST_REQUEST, params });
    const enveloped = graphql.getEnveloped(ctx as never);
    let result: ExecutionResult;
    try {
      const document = enveloped.parse(params.query!);
      const invalid = enveloped.validate(enveloped.schema, document);
      // Validation errors were mapped by their own plugin and are not masked, as in yoga.
      if (invalid.length) result = { errors: invalid };
      else {
        result = await execute(document, params, ctx);
        if (result.errors?.length) result = { ...result, errors: mask(result.errors) };
      }
    } catch (error) {
      result = { errors: mask([error]) };
    }
    const response = processRegularResult(result, CAPTURE, mediaType) as unknown as CapturedResponse;
    return { status: response.init.status, headers: { ...response.init.headers, ...(await graphqlResponseHeaders(ctx)) }, body: response.body };
  };
}
