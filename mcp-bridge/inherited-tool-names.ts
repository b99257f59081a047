import { ProtocolErrorCode } from '@modelcontextprotocol/server';

/**
 * The MCP SDK (2.4.0) looks a called tool up in a plain object, so a name that object inherits (`__proto__`,
 * `constructor`, `toString`) finds a member of Object.prototype and is answered "Tool __proto__ disabled", where every
 * other unknown name is answered "Tool … not found". Those calls are answered here, before the SDK sees them, with the
 * SDK's own unknown-tool error; no tool of ours has such a name.
 */
function inheritedToolName(message: unknown): string | undefined {
  if (typeof message !== 'object' || message === null) return undefined;
  const { method, params } = message as { method?: unknown; params?: { name?: unknown } };
  const name = method === 'tools/call' && typeof params === 'object' && params !== null ? params.name : undefined;
  return typeof name === 'string' && name in Object.prototype ? name : undefined;
}

function unknownTool(message: unknown, name: string) {
  return { jsonrpc: '2.0', id: (message as { id?: unknown }).id ?? null, error: { code: ProtocolErrorCode.InvalidParams, message: `Tool ${name} not found` } };
}

/** A request body with its calls of inherited names answered: the answers, and what is left for the SDK (if any). */
export interface InheritedToolCalls {
  answers: unknown[];
  rest: unknown;
}

/** The calls of a JSON-RPC body (one message or a batch) that name an inherited tool; undefined when there are none. */
export function inheritedToolCalls(body: unknown): InheritedToolCalls | undefined {
  const messages: unknown[] = Array.isArray(body) ? body : [body];
  const answers: unknown[] = [];
  const rest: unknown[] = [];
  for (const message of messages) {
    const name = inheritedToolName(message);
    if (name === undefined) rest.push(message);
    else answers.push(unknownTool(message, name));
  }
  if (answers.length === 0) return undefined;
  return { answers, rest: rest.length === 0 ? undefined : rest };
}
