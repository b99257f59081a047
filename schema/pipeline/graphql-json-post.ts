import type { IncomingHttpHeaders } from 'node:http';
import { processRegularResult, type FetchAPI, type GraphQLParams } from 'graphql-yoga';
import type { RequestContext } from '../../core/request-context.ts';
import { graphqlResponseHeaders, type GraphQLServer } from './graphql-server.ts';

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

/**
 * GraphQL over HTTP for the common request without the Fetch API: yoga's own handling of a request's parameters
 * (its onParams checks, the envelop pipeline with every plugin — parse and validation caches, compiled execution, the
 * operation policy, error masking — and its result processor), but no Request/Response conversion through
 * @whatwg-node/server, which cost more than the rest of a small call. Answers undefined, before anything ran, for a
 * request yoga must see whole (a body that is not one JSON object, an `Accept` that is not for JSON): the listener
 * then hands it to yoga. The schema has no subscriptions and no @defer/@stream, so a result is always single.
 */
export function createJsonPostHandler(graphql: GraphQLServer) {
  const { fetchAPI } = graphql;
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
    // Yoga's plugins read the request's method and headers (a mutation over GET is refused); its body is `params`.
    const request = new fetchAPI.Request('http://localhost/graphql', { method: 'POST', headers: headers as Record<string, string> });
    const result = await graphql.getResultForParams({ params, request }, ctx as never);
    // Yoga's parameters handler always answers a result (errors included); only its types allow none.
    const response = processRegularResult(result!, CAPTURE, mediaType) as unknown as CapturedResponse;
    return { status: response.init.status, headers: { ...response.init.headers, ...(await graphqlResponseHeaders(ctx)) }, body: response.body };
  };
}
