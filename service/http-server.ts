import { createServer, type IncomingMessage, type Server, type ServerOptions, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Dashboard } from '../dashboard/dashboard.ts';
import type { createMcpBridge } from '../mcp-bridge/mcp-handler.ts';
import type { createRestHandler } from '../rest-bridge/rest-handler.ts';
import { errorEnvelope, graphqlErrorResponse, type EnvelopeResponse } from '../schema/operation-envelope.ts';
import { reportNothingCharged } from '../schema/pipeline/credit-headers.ts';
import { logger } from '../adapters/logging/logger.ts';
import { callOptionsFromHeaders } from '../core/call-options.ts';
import { Meter } from '../core/meter.ts';
import type { RequestContext, Surface } from '../core/request-context.ts';
import type { ServiceDeps } from '../core/service-deps.ts';
import type { GraphQLServer } from '../schema/pipeline/graphql-server.ts';
import { isJsonPost, type GraphQLAnswer, type JsonPost } from '../schema/pipeline/graphql-json-post.ts';
import { readBody } from '../core/read-body.ts';
import { JSON_MEDIA_TYPE, nestsDeeperThan, TOO_DEEP } from '../core/json-depth.ts';
import { authenticate } from '../schema/pipeline/authenticate.ts';
import { PREFLIGHT, type CorsPolicy } from './cors.ts';
import type { OAuthRoutes } from './oauth-routes.ts';
import { requestIdFrom } from './request-id.ts';
import { requestTarget } from './request-target.ts';

export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * How long a client may take to send its request (docs/api-conventions.md "Requests"). Only receiving the request
 * is bounded: a long answer (an MCP subscription stream) is not.
 */
export const LISTENER_TIMEOUTS = {
  /** The request line and headers. */
  headersTimeout: 10_000,
  /** The whole request, body included: a full 1 MiB body at about 18 KB/s. */
  requestTimeout: 60_000,
  /** An idle kept-alive connection: above the 60 s idle timeout of common load balancers, so they close it first. */
  keepAliveTimeout: 65_000,
  /** How often node checks the two bounds above; its default (30 s) would let a 10 s bound run to 40 s. */
  connectionsCheckingInterval: 1_000,
} satisfies ServerOptions;

export type ListenerTimeouts = typeof LISTENER_TIMEOUTS;

/**
 * node's answer to a client that broke HTTP or ran out of time. A timeout gets the service's own envelope (the
 * GraphQL one on /graphql) while no byte of an answer has been written; anything else gets the bare answer node
 * itself would write. The socket is closed either way. On the public listener (`cors` given) the 408 also carries
 * `x-credits-charged: 0`, as every response there does, and the CORS headers of its path, so a browser can read it.
 */
function clientErrorAnswer(cors?: CorsPolicy): (error: NodeJS.ErrnoException, socket: Socket) => void {
  return (error, socket) => {
    const inFlight = (socket as Socket & { _httpMessage?: ServerResponse & { req?: IncomingMessage } })._httpMessage;
    if (!socket.writable || inFlight?.headersSent) return void socket.destroy(error);
    if (error.code !== 'ERR_HTTP_REQUEST_TIMEOUT') {
      const status = error.code === 'HPE_HEADER_OVERFLOW' ? '431 Request Header Fields Too Large' : error.code === 'HPE_CHUNK_EXTENSIONS_OVERFLOW' ? '413 Payload Too Large' : '400 Bad Request';
      return void socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\n\r\n`, () => socket.destroy());
    }
    const req = inFlight?.req;
    const requestId = requestIdFrom(req?.headers['x-request-id']);
    const path = req === undefined ? undefined : requestTarget(req.url).pathname;
    const body = JSON.stringify((path === '/graphql' ? graphqlErrorResponse('request_timeout') : errorEnvelope(requestId, 'request_timeout')).body);
    const origin = req?.headers.origin;
    const extra = cors ? { 'x-credits-charged': '0', ...(path !== undefined && origin !== undefined ? cors(path, origin) : undefined) } : {};
    socket.end(
      `HTTP/1.1 408 Request Timeout\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\n` +
        `x-request-id: ${requestId}\r\n${Object.entries(extra).map(([name, value]) => `${name}: ${value}\r\n`).join('')}connection: close\r\n\r\n${body}`,
      // Closed once written: the client may still be trickling, and nothing it sends now is read.
      () => socket.destroy(),
    );
  };
}

/**
 * The body limit of a `/graphql` request without a valid key: enough for what such a request can be served (health,
 * readiness, introspection), so an unknown caller cannot make the process parse 1 MiB (docs/api-conventions.md).
 */
export const KEYLESS_GRAPHQL_BODY_BYTES = 16 * 1024;

/** A request with a valid key may send up to 1 MiB; the key is checked once here and kept on the context. */
async function graphqlBodyLimit(ctx: RequestContext): Promise<number> {
  if (!ctx.authorization) return KEYLESS_GRAPHQL_BODY_BYTES;
  return authenticate(ctx).then(() => MAX_BODY_BYTES, () => KEYLESS_GRAPHQL_BODY_BYTES);
}

function bodyLimitMessage(limit: number): string {
  return limit === MAX_BODY_BYTES ? 'The request body is over 1 MiB.' : `Without a valid API key, a GraphQL request body is limited to ${limit / 1024} KiB (1 MiB with one).`;
}


/**
 * Request media types yoga is given; anything else is refused before it reaches yoga. Not form or multipart data,
 * which yoga also parses: the form parser takes time super-linear in the fields (a 1 MiB form held the event loop
 * for seconds), and yoga decodes their `variables`, `extensions` and `operations` members itself, past the listener's
 * JSON depth check. No field of the schema takes a file, and no client needs them (docs/api-conventions.md "Requests").
 */
const GRAPHQL_MEDIA_TYPES = /^\s*application\/(json|graphql|graphql-response\+json)\b/i;

export interface HttpRoutes {
  deps: ServiceDeps;
  graphql: GraphQLServer;
  /** The common GraphQL request (`isJsonPost`) without yoga's Fetch conversions; undefined hands it to yoga. */
  graphqlJson: (request: JsonPost, ctx: RequestContext) => Promise<GraphQLAnswer | undefined>;
  rest: ReturnType<typeof createRestHandler>;
  mcp: ReturnType<typeof createMcpBridge>;
  openApiJson: string;
  dashboard: Dashboard;
  now: () => Date;
  /** MCP sign-in's paths; ready once the listener knows its public URL. */
  oauth: () => OAuthRoutes | undefined;
  cors: CorsPolicy;
}

const OAUTH_PATH = /^\/(\.well-known|oauth)\//;

function newContext(routes: HttpRoutes, req: IncomingMessage, surface: Surface, requestId: string, seen: { ctx?: RequestContext }): RequestContext {
  return (seen.ctx = {
    requestId,
    surface,
    authorization: req.headers.authorization,
    clientAddress: req.socket.remoteAddress,
    meter: new Meter(),
    deps: routes.deps,
    responseHeaders: {},
    memo: new Map(),
    now: routes.now,
    callOptions: callOptionsFromHeaders((name) => req.headers[name]),
  });
}

/**
 * The longest path or operation list an access line keeps: a 16 KB URL or a document of 20,000 aliases would
 * otherwise make one line of hundreds of KB. Longer text is cut and marked with its full length.
 */
export const ACCESS_LOG_TEXT_MAX = 1024;

export function boundedForLog(text: string | undefined): string | undefined {
  if (text === undefined || text.length <= ACCESS_LOG_TEXT_MAX) return text;
  return `${text.slice(0, ACCESS_LOG_TEXT_MAX)}… (${text.length} characters)`;
}

/** One access line a request: who, what, how it ended, what it cost, how long it took. */
function logAccess(req: IncomingMessage, res: ServerResponse, requestId: string, started: number, ctx: RequestContext | undefined): void {
  logger.info(
    {
      requestId,
      // The connection's peer: anonymous abuse can be traced to a source. Behind a proxy that is the proxy; the service
      // has no trusted-proxy setting, so X-Forwarded-For (anyone's to write) is not believed (README, LOG_LEVEL).
      clientAddress: req.socket.remoteAddress,
      method: req.method,
      path: boundedForLog((req.url ?? '/').split('?')[0]),
      status: res.statusCode,
      surface: ctx?.surface,
      workspaceId: ctx?.principal?.workspaceId,
      operation: boundedForLog(ctx?.operation),
      // From the call's context: a head written whole by writeHead keeps no headers getHeader could read.
      creditsCharged: Number(ctx?.responseHeaders['x-credits-charged'] ?? 0),
      durationMs: Math.round((performance.now() - started) * 10) / 10,
    },
    'request',
  );
}

/** The headers a call's pipeline set, with the credit headers every response carries (0 charged when none ran). */
async function creditHeaders(ctx: RequestContext): Promise<Record<string, string>> {
  await reportNothingCharged(ctx);
  return ctx.responseHeaders;
}

/**
 * A whole answer in one head and one write. The head goes as a flat [name, value, …] list, which node writes without
 * walking and re-validating an object's entries; later sources win for a name, as object spreading would.
 */
function writeWhole(res: ServerResponse, status: number, body: string, ...sources: Record<string, string | number>[]): void {
  const headers: Record<string, string | number> = {};
  for (const source of sources) for (const name in source) headers[name] = source[name]!;
  headers['content-length'] = Buffer.byteLength(body);
  const flat: (string | number)[] = [];
  for (const name in headers) flat.push(name, headers[name]!);
  res.writeHead(status, flat as unknown as Record<string, string>);
  res.end(body);
}

function send(res: ServerResponse, requestId: string, response: EnvelopeResponse, extraHeaders: Record<string, string> = {}): void {
  writeWhole(res, response.status, JSON.stringify(response.body), { 'content-type': 'application/json; charset=utf-8', 'x-request-id': requestId }, extraHeaders, response.headers);
}

function toWebRequest(req: IncomingMessage, body: string, WebRequest: typeof Request = Request): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
  }
  const method = req.method ?? 'GET';
  // A fixed origin: the Host header is the client's to send, and a malformed one must not fail the request.
  return new WebRequest(new URL(req.url ?? '/', 'http://localhost'), {
    method,
    headers,
    ...(method === 'GET' || method === 'HEAD' ? {} : { body }),
  });
}

/**
 * Writes a web Response. Its body is read whole before the head is written, so headers that only exist once the
 * work behind the body is done (a call's credits) are sent with it; `stream` pipes a long-lived native stream as
 * it comes instead.
 */
async function sendWeb(res: ServerResponse, response: Response, headers: () => Promise<Record<string, string>>, stream = false): Promise<void> {
  const outgoing: Record<string, string> = {};
  response.headers.forEach((value, name) => (outgoing[name] = value));
  if (stream && response.body instanceof ReadableStream) {
    res.writeHead(response.status, { ...outgoing, ...(await headers()) });
    // A client going away cancels the stream (which gives its place back, mcp-bridge/open-streams.ts): not a failure.
    await pipeline(Readable.fromWeb(response.body as never), res).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ERR_STREAM_PREMATURE_CLOSE') throw error;
    });
    return;
  }
  const body = response.body ? Buffer.from(await response.arrayBuffer()) : undefined;
  res.writeHead(response.status, { ...outgoing, ...(await headers()) });
  res.end(body);
}

/** The public HTTP listener: /graphql, /v1/*, /mcp, /dashboard, /openapi.json, /health, /ready, and MCP sign-in (OAuth). */
export function createHttpServer(routes: HttpRoutes, timeouts: ListenerTimeouts = LISTENER_TIMEOUTS): Server {
  const handle = async (req: IncomingMessage, res: ServerResponse, requestId: string, seen: { ctx?: RequestContext }): Promise<void> => {
    const { pathname: path, search } = requestTarget(req.url);
    const oauth = OAUTH_PATH.test(path) ? routes.oauth() : undefined;
    if (oauth && (await oauth(req, res))) return;
    // Only a browser sends Origin: other clients' requests never pay for the headers below.
    const cors = req.headers.origin === undefined ? undefined : routes.cors(path, req.headers.origin);
    if (cors) {
      if (req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined) {
        res.writeHead(204, { ...cors, ...PREFLIGHT, 'content-length': '0', 'x-credits-charged': '0', 'x-request-id': requestId });
        return void res.end();
      }
      // Kept by every head written below (node merges them into writeHead's own).
      for (const name in cors) res.setHeader(name, cors[name]!);
    }
    if (path === '/graphql') {
      const ctx = newContext(routes, req, 'graphql', requestId, seen);
      const limit = await graphqlBodyLimit(ctx);
      const tooLarge = () => graphqlErrorResponse('payload_too_large', bodyLimitMessage(limit), { field: 'body', maximum: limit });
      if (Number(req.headers['content-length'] ?? 0) > limit) return send(res, requestId, tooLarge(), await creditHeaders(ctx));
      if (req.method === 'POST' && !GRAPHQL_MEDIA_TYPES.test(req.headers['content-type'] ?? '')) {
        const message = 'GraphQL requests are POSTed as application/json (or application/graphql); form and multipart data are not taken.';
        return send(res, requestId, graphqlErrorResponse('unsupported_media_type', message, { field: 'content-type' }), await creditHeaders(ctx));
      }
      // Media types and charsets are case-insensitive (RFC 9110); yoga compares them as written.
      const contentType = req.headers['content-type'];
      if (contentType !== undefined && contentType !== contentType.toLowerCase()) req.headers['content-type'] = contentType.toLowerCase();
      const common = isJsonPost(req);
      const json = req.method === 'POST' && JSON_MEDIA_TYPE.test(req.headers['content-type'] ?? '');
      if (!json && (req.headers['content-length'] !== undefined || req.method === 'GET' || req.method === 'HEAD')) {
        await routes.graphql(req, res, ctx);
        return;
      }
      // A JSON body, and a body of undeclared length (chunked), are read under the limit first, and a JSON one is
      // checked for depth before anything parses it.
      const body = await readBody(req, limit);
      if (body === undefined) return send(res, requestId, tooLarge(), { connection: 'close', ...(await creditHeaders(ctx)) });
      if (json && nestsDeeperThan(body)) return send(res, requestId, graphqlErrorResponse('invalid_request', TOO_DEEP.message, TOO_DEEP.details), await creditHeaders(ctx));
      const answer = common ? await routes.graphqlJson({ body, headers: req.headers }, ctx) : undefined;
      if (answer) return writeWhole(res, answer.status, answer.body, answer.headers);
      // Nothing ran on the common path's context when it declined: yoga starts afresh on the whole body, in a
      // Request of its own Fetch API, as its node handler would build (the platform's drops a byte order mark).
      const yogaCtx = common ? newContext(routes, req, 'graphql', requestId, seen) : ctx;
      return sendWeb(res, await routes.graphql.fetch(toWebRequest(req, body, routes.graphql.fetchAPI.Request), yogaCtx), async () => ({}));
    }
    if (path === '/openapi.json' && (req.method === 'GET' || req.method === 'HEAD')) {
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'x-request-id': requestId });
      res.end(routes.openApiJson);
      return;
    }
    // The dashboard reads its own body, under its own small limit (dashboard/dashboard-http.ts, FORM_BODY_BYTES).
    if (path === '/dashboard' || path.startsWith('/dashboard/')) {
      const page = await routes.dashboard(req);
      res.writeHead(page.status, { 'x-request-id': requestId, ...page.headers });
      res.end(req.method === 'HEAD' ? undefined : page.body);
      return;
    }
    const body = await readBody(req, MAX_BODY_BYTES);
    if (body === undefined) {
      // Refused unread: nothing charged, and the caller's balance when the key is valid, as on every response.
      const refused = newContext(routes, req, path === '/mcp' ? 'mcp' : 'rest', requestId, seen);
      return send(res, requestId, errorEnvelope(requestId, 'payload_too_large'), { connection: 'close', ...(await creditHeaders(refused)) });
    }
    if (path === '/mcp') {
      const ctx = newContext(routes, req, 'mcp', requestId, seen);
      const { response, stream } = await routes.mcp.handle(toWebRequest(req, body), body, ctx);
      if (!(response instanceof Response)) return send(res, requestId, response);
      // A single exchange is read whole before its head is written: its tool has then run, so the response carries
      // the call's credit headers. Only a subscription stream is piped as it comes.
      return sendWeb(res, response, async () => ({ 'x-request-id': requestId, ...(await creditHeaders(ctx)) }), stream);
    }
    const ctx = newContext(routes, req, 'rest', requestId, seen);
    if (JSON_MEDIA_TYPE.test(req.headers['content-type'] ?? '') && nestsDeeperThan(body)) {
      return send(res, requestId, errorEnvelope(requestId, 'invalid_request', TOO_DEEP.message, TOO_DEEP.details), await creditHeaders(ctx));
    }
    const idempotencyKey = req.headers['idempotency-key'];
    const response = await routes.rest({ method: req.method ?? 'GET', pathname: path, query: search, contentType: req.headers['content-type'], body, idempotencyKey: Array.isArray(idempotencyKey) ? idempotencyKey[0] : idempotencyKey }, ctx);
    send(res, requestId, response, await creditHeaders(ctx));
  };

  const server = createServer(timeouts, (req, res) => {
    const requestId = requestIdFrom(req.headers['x-request-id']);
    const started = performance.now();
    const seen: { ctx?: RequestContext } = {};
    // The access line is built only when it is written (LOG_LEVEL info or finer).
    if (logger.isLevelEnabled('info')) res.once('finish', () => logAccess(req, res, requestId, started, seen.ctx));
    handle(req, res, requestId, seen).catch((error: unknown) => {
      // A client gone, or timed out, before its whole request arrived: nothing to answer, and nothing failed here.
      if (!req.complete && req.socket.destroyed) return void logger.info({ requestId, reason: (error as Error).message }, 'request abandoned before it arrived');
      logger.error({ err: error, requestId }, 'request failed');
      if (!res.headersSent) send(res, requestId, errorEnvelope(requestId, 'internal_error'));
      else res.destroy();
    });
  });
  server.on('clientError', clientErrorAnswer(routes.cors));
  return server;
}

/** The operator API's own listener (loopback by default): nothing else is served there, and it is never public. */
export function createOperatorServer(operator: (req: IncomingMessage, body: string, requestId: string) => Promise<EnvelopeResponse>): Server {
  const server = createServer(LISTENER_TIMEOUTS, (req, res) => {
    const requestId = requestIdFrom(req.headers['x-request-id']);
    const started = performance.now();
    res.once('finish', () => logAccess(req, res, requestId, started, undefined));
    (async () => {
      const body = await readBody(req, MAX_BODY_BYTES);
      if (body === undefined) return send(res, requestId, errorEnvelope(requestId, 'payload_too_large'), { connection: 'close' });
      send(res, requestId, await operator(req, body, requestId));
    })().catch((error: unknown) => {
      logger.error({ err: error, requestId }, 'operator request failed');
      if (!res.headersSent) send(res, requestId, errorEnvelope(requestId, 'internal_error'));
      else res.destroy();
    });
  });
  server.on('clientError', clientErrorAnswer());
  return server;
}
