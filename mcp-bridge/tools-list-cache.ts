import { createHash } from 'node:crypto';

/** Distinct lists kept; past it the cache starts again (scope sets and client forms are few, an attacker's many). */
const MAX_ENTRIES = 64;

/** The request headers the SDK reads to choose how it answers (protocol era, media type): part of the key. */
const KEY_HEADERS = ['accept', 'content-type', 'mcp-protocol-version', 'mcp-method'] as const;

/** A `tools/list` request the cache may answer: a JSON-RPC 2.0 request with an id and, if any, object params. */
function cacheableList(message: unknown): { id: string | number; params: unknown } | undefined {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return undefined;
  const { jsonrpc, method, id, params } = message as { jsonrpc?: unknown; method?: unknown; id?: unknown; params?: unknown };
  if (jsonrpc !== '2.0' || method !== 'tools/list' || !(typeof id === 'string' || Number.isInteger(id))) return undefined;
  if (params !== undefined && (typeof params !== 'object' || params === null || Array.isArray(params))) return undefined;
  return { id: id as string | number, params };
}

/** Asks the SDK for one message's answers (a fresh server built for the caller, as for any request). */
export type ServeOne = (message: unknown) => Promise<unknown[]>;

/** A body's `tools/list` requests answered (serialized JSON-RPC answers) and what is left for the SDK, if anything. */
export interface ListedTools {
  answers: string[];
  rest: unknown;
}

/**
 * `tools/list` answers, serialized once per scope set. The list is the same for every caller whose scopes are the same
 * (mcp-server.ts lists what the scopes let a key see) but is about 350 KB of JSON, built and serialized afresh by the
 * SDK on each request. The SDK's own answer to the first request is kept: its result differs with the protocol era and
 * the request's params (its envelope), so both are in the key, and only its id is put back per request. A request
 * the SDK refuses is not kept: it is refused again as it comes.
 */
export function createToolsListCache() {
  const results = new Map<string, Promise<string | undefined>>();
  const keyOf = (request: Request, scopes: readonly string[], params: unknown): string => {
    const headers = KEY_HEADERS.map((name) => request.headers.get(name));
    return createHash('sha256').update(JSON.stringify([headers, [...scopes].sort(), params ?? null])).digest('base64url');
  };
  const resultOf = (key: string, message: unknown, serve: ServeOne): Promise<string | undefined> => {
    let result = results.get(key);
    if (!result) {
      if (results.size >= MAX_ENTRIES) results.clear();
      result = serve({ ...(message as object), id: 0 }).then(([answer]) => {
        const outcome = answer as { result?: unknown } | undefined;
        if (outcome?.result === undefined) results.delete(key);
        return outcome?.result === undefined ? undefined : JSON.stringify(outcome.result);
      });
      results.set(key, result);
      result.catch(() => results.delete(key));
    }
    return result;
  };
  return {
    /** The body's `tools/list` requests answered from the cache; undefined when it has none the cache answers. */
    async answer(body: unknown, request: Request, scopes: readonly string[], serve: ServeOne): Promise<ListedTools | undefined> {
      const messages: unknown[] = Array.isArray(body) ? body : [body];
      const answers: string[] = [];
      const rest: unknown[] = [];
      for (const message of messages) {
        const list = cacheableList(message);
        const result = list && (await resultOf(keyOf(request, scopes, list.params), message, serve));
        if (list && result !== undefined) answers.push(`{"result":${result},"jsonrpc":"2.0","id":${JSON.stringify(list.id)}}`);
        else rest.push(message);
      }
      if (answers.length === 0) return undefined;
      // A single message answered leaves nothing; a batch leaves its other messages.
      return { answers, rest: rest.length === 0 ? undefined : rest };
    },
  };
}
