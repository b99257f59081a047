import { createMcpHandler, OAuthError, ProtocolErrorCode, type AuthInfo } from '@modelcontextprotocol/server';
import { nestsDeeperThan, TOO_DEEP } from '../core/json-depth.ts';
import { grants } from '../adapters/identity/scopes.ts';
import type { OperationSpec } from '../schema/catalogue/operation.ts';
import { isServiceError } from '../core/error-catalogue.ts';
import type { OperationExecutor } from '../schema/execute-operation.ts';
import { errorEnvelope, type EnvelopeResponse } from '../schema/operation-envelope.ts';
import { MCP_MESSAGES } from '../schema/catalogue/mcp-messages.ts';
import { SUBSCRIPTION_STREAMS } from '../schema/catalogue/mcp-streams.ts';
import { authenticate, withBoundedLookup } from '../schema/pipeline/authenticate.ts';
import { toCatalogueError } from '../schema/pipeline/error-mapping.ts';
import type { Principal, RequestContext } from '../core/request-context.ts';
import { inheritedToolCalls } from './inherited-tool-names.ts';
import { buildMcpServer, toolVisible } from './mcp-server.ts';
import type { McpOAuth } from './mcp-oauth.ts';
import type { OpenStreams } from './open-streams.ts';
import { createToolsListCache } from './tools-list-cache.ts';

/** Protocol versions from which MCP has no JSON-RPC batches (dated versions compare as text). */
const NO_BATCHES_FROM = '2025-06-18';

/** A JSON array body under a protocol version that no longer allows batching. */
function isRefusedBatch(request: Request, body: string): boolean {
  const version = request.headers.get('mcp-protocol-version');
  if (!version || version < NO_BATCHES_FROM || request.method !== 'POST') return false;
  return body.trimStart().startsWith('[');
}

/** Whether an MCP message opens a long-lived `subscriptions/listen` stream. */
function isSubscriptionStream(message: unknown): boolean {
  return typeof message === 'object' && message !== null && (message as { method?: unknown }).method === 'subscriptions/listen';
}

/**
 * The rate-limit weight of a body's messages that nothing else weighs: all but its calls of catalogue tools (weighed by
 * the pipeline as their operations) and a stream opening (a lone `subscriptions/listen`, SUBSCRIPTION_STREAMS). A call
 * of a tool that does not exist, or names none, never reaches the pipeline, so it weighs as any other message; a body
 * that does not parse counts as one message.
 */
function messagesWeight(body: unknown, tools: ReadonlySet<unknown>): number {
  if (isSubscriptionStream(body)) return 0;
  const messages: unknown[] = body === undefined ? [undefined] : Array.isArray(body) ? body : [body];
  const reachesPipeline = (message: unknown) => {
    const { method, params } = (typeof message === 'object' && message !== null ? message : {}) as { method?: unknown; params?: { name?: unknown } };
    return method === 'tools/call' && tools.has(params?.name);
  };
  return messages.filter((message) => !reachesPipeline(message)).length * MCP_MESSAGES.rateLimitWeight;
}

/** A POST's JSON body, parsed once for every reader; undefined for none, or one that does not parse (the SDK answers that). */
function parsedJson(body: string): unknown {
  if (body === '') return undefined;
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return undefined;
  }
}

/** What /mcp answers, and whether it is a subscription stream (piped as it comes, not read whole). */
export interface McpAnswer {
  response: Response | EnvelopeResponse;
  stream: boolean;
}

const answered = (response: Response | EnvelopeResponse): McpAnswer => ({ response, stream: false });

/** The stream's body, calling `ended` once it ends, however it ends (closed by the server, cancelled by the client). */
function endingWith(body: ReadableStream<Uint8Array>, ended: () => void): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (!done) return controller.enqueue(value);
        ended();
        controller.close();
      } catch (error) {
        ended();
        controller.error(error);
      }
    },
    cancel(reason) {
      ended();
      return reader.cancel(reason);
    },
  });
}

/** The operation a `tools/call` names, when the caller holds none of the scopes it accepts. */
function missingScopeOf(body: unknown, operations: readonly OperationSpec[], principal: Principal): OperationSpec | undefined {
  const message = body as { method?: unknown; params?: { name?: unknown } } | null | undefined;
  if (message?.method !== 'tools/call') return undefined;
  const op = operations.find((candidate) => candidate.tool === message.params?.name);
  if (!op || op.scopes.length === 0) return undefined;
  return op.scopes.some((scope) => grants(principal.scopes, scope)) ? undefined : op;
}

/** The tools a JSON-RPC body (one message or a batch) calls. */
function calledTools(body: unknown): ReadonlySet<string> {
  const messages: unknown[] = Array.isArray(body) ? body : [body];
  const names = messages.map((message) => {
    const { method, params } = (typeof message === 'object' && message !== null ? message : {}) as { method?: unknown; params?: { name?: unknown } };
    return method === 'tools/call' && typeof params === 'object' && params !== null ? params.name : undefined;
  });
  return new Set(names.filter((name): name is string => typeof name === 'string'));
}

/**
 * A batch's calls of tools the caller does not see, apart from its other messages; undefined when it has none, or
 * nothing else. A server registers such a tool only for a request calling it (mcp-server.ts), and then lists it too: a
 * `tools/list` in the same batch must not, as it does not when sent alone. So those calls are served apart.
 */
function hiddenToolCalls(body: unknown, operations: readonly OperationSpec[], scopes: readonly string[]): { hidden: unknown[]; rest: unknown[] } | undefined {
  if (!Array.isArray(body)) return undefined;
  const hiddenTools = new Set(operations.filter((op) => !toolVisible(op, scopes)).map((op) => op.tool));
  const hidden = body.filter((message) => [...calledTools(message)].some((name) => hiddenTools.has(name)));
  if (hidden.length === 0 || hidden.length === body.length) return undefined;
  return { hidden, rest: body.filter((message) => !hidden.includes(message)) };
}

/** A JSON-RPC error answer of the bridge's own, before the SDK sees the request: nothing charged. */
const protocolRefusal = (code: number, message: string, data?: Record<string, unknown>): McpAnswer =>
  answered({ status: 400, headers: { 'x-credits-charged': '0' }, isError: true, body: { jsonrpc: '2.0', id: null, error: { code, message, ...(data ? { data } : {}) } } });

/** The JSON-RPC messages of an SDK answer: its JSON (one message or an array), or its events' data; none for a 202. */
async function messagesOf(response: Response): Promise<unknown[]> {
  if (response.status === 202) return [];
  const text = await response.text();
  if (!(response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    const json = JSON.parse(text) as unknown;
    return Array.isArray(json) ? json : [json];
  }
  return text.split('\n').filter((line) => line.startsWith('data:')).map((line) => JSON.parse(line.slice(5)) as unknown);
}

/**
 * The SDK's answers to the rest of a batch, with ours to its calls of inherited tool names (inherited-tool-names.ts)
 * added in the same form: events of its stream (2025-era batches are answered as one), or members of its JSON array.
 */
async function withAnswers(response: Response, answers: string[]): Promise<Response> {
  // Notifications alone get no answer (202): ours are then the batch's only answers.
  if (response.status === 202) return jsonAnswer(`[${answers.join(',')}]`);
  const type = response.headers.get('content-type') ?? '';
  if (!response.ok || !(type.startsWith('text/event-stream') || type.startsWith('application/json'))) return response;
  const headers = new Headers(response.headers);
  headers.delete('content-length');
  if (type.startsWith('text/event-stream')) {
    const events = answers.map((answer) => `event: message\ndata: ${answer}\n\n`).join('');
    return new Response((await response.text()) + events, { status: response.status, headers });
  }
  // Joined as text: our answers are serialized already (a cached tools/list is large).
  const rest = (await response.text()).trim();
  const members = rest.startsWith('[') ? rest.slice(1, -1).trim() : rest;
  return new Response(`[${[...(members === '' ? [] : [members]), ...answers].join(',')}]`, { status: response.status, headers });
}

/** Serialized JSON as an answer. */
const jsonAnswer = (json: string) => new Response(json, { headers: { 'content-type': 'application/json' } });

/**
 * `/mcp`: stateless Streamable HTTP. Serves the 2026-07-28 protocol and, for 2025-era clients, the
 * stateless legacy fallback; every request gets a fresh server built for the caller's key.
 */
export function createMcpBridge(
  operations: readonly OperationSpec[],
  executor: OperationExecutor,
  info: { name: string; version: string },
  options: { allowedOrigins: ReadonlySet<string>; oauth: () => McpOAuth | undefined; streams: OpenStreams },
) {
  const toolsLists = createToolsListCache();
  const toolNames: ReadonlySet<unknown> = new Set(operations.map((op) => op.tool));
  const handler = createMcpHandler(
    (mcpCtx) => {
      const ctx = mcpCtx.authInfo?.extra?.requestContext as RequestContext | undefined;
      // The bridge authenticates before it calls the handler, so a request context is always present.
      if (!ctx) throw new Error('MCP request without an authenticated context');
      return buildMcpServer(ctx, operations, executor, info, calledTools(mcpCtx.authInfo?.extra?.parsedBody));
    },
    // One JSON answer after the tool has run, so the HTTP response can carry the call's credit headers.
    { responseMode: 'json' },
  );

  /** A `subscriptions/listen` stream: it takes one of the key's places and spends rate-limit weight, or is refused. */
  const openStream = async (request: Request, principal: Principal, ctx: RequestContext, authInfo: AuthInfo, parsedBody: unknown): Promise<Response | EnvelopeResponse> => {
    const slot = options.streams.open(principal, (await ctx.deps.rateLimits.tierOf(principal)) === 'free');
    if ('refused' in slot) {
      const message =
        slot.refused === 'instance'
          ? `This instance has ${slot.limit} subscription streams open, the most it serves: try again later.`
          : slot.refused === 'free_tier'
            ? `This instance has ${slot.limit} subscription streams of free-tier accounts open, the most it serves them: try again later, or buy credits to leave the free tier.`
            : `This ${slot.refused} already has ${slot.limit} subscription streams open on this instance, the most it may: close one first.`;
      const envelope = errorEnvelope(ctx.requestId, 'rate_limited', message, { reason: 'too_many_streams', limit: slot.limit, per: slot.refused });
      return { ...envelope, headers: { 'retry-after': String(SUBSCRIPTION_STREAMS.retryAfterSeconds), 'x-credits-charged': '0' } };
    }
    let response: Response;
    try {
      await ctx.deps.rateLimits.consume(principal, SUBSCRIPTION_STREAMS.rateLimitWeight);
      // The SDK ends the stream when this signal aborts: its key changed or expired (open-streams.ts).
      response = await handler.fetch(new Request(request, { signal: slot.signal }), { authInfo, parsedBody });
    } catch (error) {
      slot.release();
      throw error;
    }
    if (!response.body || !response.headers.get('content-type')?.startsWith('text/event-stream')) {
      slot.release();
      return response;
    }
    return new Response(endingWith(response.body, slot.release), response);
  };

  return {
    /** `body` is the request's text, read once by the listener. */
    async handle(request: Request, body: string, ctx: RequestContext): Promise<McpAnswer> {
      // Streamable HTTP: a browser page of an origin not allowed must not drive the server (DNS rebinding).
      const origin = request.headers.get('origin');
      if (origin !== null && !options.allowedOrigins.has(origin)) {
        return answered({ status: 403, headers: { 'x-credits-charged': '0' }, isError: true, body: { jsonrpc: '2.0', id: null, error: { code: -32600, message: `Origin ${origin} is not allowed: the operator lists allowed origins in SVC_MCP_ALLOWED_ORIGINS.` } } });
      }
      if (isRefusedBatch(request, body)) {
        return protocolRefusal(-32600, 'JSON-RPC batches are not part of MCP since protocol 2025-06-18: send one message per request.');
      }
      // Refused before anything parses it, as /v1 and /graphql do; in the JSON-RPC shape the SDK gives a body that does not parse.
      if (request.method === 'POST' && nestsDeeperThan(body)) {
        return protocolRefusal(ProtocolErrorCode.ParseError, TOO_DEEP.message, TOO_DEEP.details);
      }
      const oauth = options.oauth();
      try {
        if (oauth && !ctx.principal) {
          // An access token's read is bounded as a key's is; a refused token (OAuthError) stays counted.
          const connection = await withBoundedLookup(ctx, (beforeLookup) => oauth.principalOf(ctx.authorization, beforeLookup), (found) => found !== undefined, (error) => error instanceof OAuthError);
          if (connection) ctx.principal = connection;
        }
        const principal = await authenticate(ctx);
        // Parsed only once the caller is known, and once: the scope check, the stream check, the SDK all read this.
        const parsed = parsedJson(body);
        // A connection asking for a tool beyond its grant is told which scopes to ask for (step-up, RFC 6750 §3.1).
        const beyondGrant = oauth && principal.kind === 'mcp_connection' ? missingScopeOf(parsed, operations, principal) : undefined;
        if (beyondGrant && oauth) {
          const message = `This connection lacks the scope ${beyondGrant.scopes.join(' or ')} needed by ${beyondGrant.operationId}: approve it again with that access ticked.`;
          const envelope = errorEnvelope(ctx.requestId, 'insufficient_scope', message, { requiredScope: beyondGrant.scopes[0], operationId: beyondGrant.operationId });
          return answered({ ...envelope, headers: { 'www-authenticate': oauth.refusal('insufficient_scope', 'Insufficient scope', beyondGrant.scopes), 'x-credits-charged': '0' } });
        }
        if (Array.isArray(parsed) && parsed.length > MCP_MESSAGES.maxPerBatch) {
          return protocolRefusal(-32600, `A JSON-RPC batch may hold at most ${MCP_MESSAGES.maxPerBatch} messages; this one holds ${parsed.length}: send it as smaller batches.`, { limit: MCP_MESSAGES.maxPerBatch, messages: parsed.length });
        }
        const weight = messagesWeight(parsed, toolNames);
        if (weight > 0) await ctx.deps.rateLimits.consume(principal, weight);
        const authInfo: AuthInfo = { token: principal.kind ?? 'api-key', clientId: principal.keyId, scopes: [...principal.scopes], extra: { requestContext: ctx, parsedBody: parsed } };
        if (isSubscriptionStream(parsed)) return { response: await openStream(request, principal, ctx, authInfo, parsed), stream: true };
        // Each part gets a server of its own, built for the tools that part calls.
        const serve = (part: unknown) => handler.fetch(request, { authInfo: { ...authInfo, extra: { ...authInfo.extra, parsedBody: part } }, parsedBody: part });
        // A POST whose body this bridge cannot parse is refused here, never handed on: the SDK parses more than
        // JSON.parse does (it drops a byte order mark), so a body it read would skip the batch bound, the weights and
        // the stream slots (late review h). A GET or DELETE goes to the SDK: 405, as this stateless server keeps no
        // stream, so a client stops asking (an empty 200 made the official client ask every second; spec review h, H1).
        if (parsed === undefined && request.method === 'POST') return protocolRefusal(ProtocolErrorCode.ParseError, 'The body is not JSON: send one JSON-RPC message (or, before 2025-06-18, a batch) as application/json.');
        if (parsed === undefined) return answered(await serve(undefined));
        const inherited = inheritedToolCalls(parsed);
        const unanswered = inherited ? inherited.rest : parsed;
        const listed = unanswered === undefined ? undefined : await toolsLists.answer(unanswered, request, principal.scopes, async (message) => messagesOf(await serve(message)));
        const ours = [...(inherited?.answers ?? []).map((answer) => JSON.stringify(answer)), ...(listed?.answers ?? [])];
        const rest = listed ? listed.rest : unanswered;
        if (rest === undefined) return answered(jsonAnswer(Array.isArray(parsed) ? `[${ours.join(',')}]` : ours[0]!));
        const apart = hiddenToolCalls(rest, operations, principal.scopes);
        const answers = [...ours, ...(apart ? (await messagesOf(await serve(apart.hidden))).map((answer) => JSON.stringify(answer)) : [])];
        const response = await serve(apart ? apart.rest : rest);
        return answered(answers.length === 0 ? response : await withAnswers(response, answers));
      } catch (error) {
        if (error instanceof OAuthError) {
          const envelope = errorEnvelope(ctx.requestId, 'unauthenticated', `The access token is refused: ${error.message}.`, { reason: 'invalid_token' });
          return answered({ ...envelope, headers: { 'www-authenticate': oauth?.refusal('invalid_token', error.message) ?? 'Bearer', 'x-credits-charged': '0' } });
        }
        // Checking a credential reads the database: a fault there is the pipeline's 503 not_ready, as on every surface.
        const failure = toCatalogueError(error);
        if (!isServiceError(failure)) throw error;
        const envelope = errorEnvelope(ctx.requestId, failure.extensions.code, failure.message, failure.extensions.details);
        // A refusal's own headers (a rate limit's Retry-After) go with it.
        if (failure.extensions.code !== 'unauthenticated') return answered({ ...envelope, headers: { ...failure.extensions.http.headers, 'x-credits-charged': '0' } });
        if (!oauth) return answered({ ...envelope, headers: { 'www-authenticate': 'Bearer', 'x-credits-charged': '0' } });
        const challenge = ctx.authorization !== undefined ? oauth.refusal('invalid_token', failure.message) : oauth.challenge();
        return answered({ ...envelope, headers: { 'www-authenticate': challenge, 'x-credits-charged': '0' } });
      }
    },
    close: () => handler.close(),
  };
}
